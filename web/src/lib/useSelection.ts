import { useCallback, useEffect, useState } from "preact/hooks";
import type { FileRec } from "./types.ts";

/** Multi-selection over an ordered list: click, ctrl-click toggle, shift-click range, select all. */
export function useSelection(files: FileRec[], resetKey: unknown) {
  const [selected, setSelected] = useState<ReadonlySet<string>>(new Set());
  const [focus, setFocus] = useState(-1);
  const [anchor, setAnchor] = useState(0);

  useEffect(() => {
    setSelected(new Set());
    setFocus(-1);
  }, [resetKey]);

  const select = useCallback(
    (index: number, how: "only" | "toggle" | "range") => {
      const f = files[index];
      if (!f) return;
      if (how === "range") {
        const [a, b] = anchor <= index ? [anchor, index] : [index, anchor];
        setSelected(new Set(files.slice(a, b + 1).map((x) => x.id)));
        return;
      }
      setAnchor(index);
      if (how === "only") setSelected(new Set([f.id]));
      else
        setSelected((s) => {
          const n = new Set(s);
          if (!n.delete(f.id)) n.add(f.id);
          return n;
        });
    },
    [files, anchor],
  );
  const selectAll = useCallback(() => setSelected(new Set(files.map((f) => f.id))), [files]);
  const clear = useCallback(() => setSelected(new Set()), []);
  const chosen = files.filter((f) => selected.has(f.id));
  return { selected, chosen, focus, setFocus, select, selectAll, clear };
}
