import { useEffect, useState } from "preact/hooks";

/** A short message at the bottom of the screen (announced to screen readers by the live region). */
export interface Toast {
  id: number;
  text: string;
  kind: "info" | "error";
}

let toasts: Toast[] = [];
let seq = 0;
const subs = new Set<(t: Toast[]) => void>();

function publish(next: Toast[]): void {
  toasts = next;
  for (const s of subs) s(toasts);
}

/** Shows `text` for a few seconds; errors stay a little longer. */
export function toast(text: string, kind: Toast["kind"] = "info"): void {
  const t = { id: ++seq, text, kind };
  publish([...toasts.slice(-3), t]);
  setTimeout(() => publish(toasts.filter((x) => x.id !== t.id)), kind === "error" ? 7000 : 3500);
}

export function dismissToast(id: number): void {
  publish(toasts.filter((x) => x.id !== id));
}

export function useToasts(): Toast[] {
  const [list, setList] = useState(toasts);
  useEffect(() => {
    subs.add(setList);
    return () => {
      subs.delete(setList);
    };
  }, []);
  return list;
}
