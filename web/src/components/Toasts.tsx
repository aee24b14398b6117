import { dismissToast, useToasts } from "../lib/toast.ts";

/** The message area: polite for news, assertive for errors. */
export function Toasts() {
  const list = useToasts();
  return (
    <div class="toasts" role="status" aria-live="polite">
      {list.map((t) => (
        <div key={t.id} class={`toast toast-${t.kind}`} role={t.kind === "error" ? "alert" : undefined}>
          <span>{t.text}</span>
          <button type="button" class="link" onClick={() => dismissToast(t.id)} aria-label="Dismiss">
            ×
          </button>
        </div>
      ))}
    </div>
  );
}
