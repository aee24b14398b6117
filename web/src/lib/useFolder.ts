import { useCallback, useEffect, useMemo, useState } from "preact/hooks";
import { ancestors, listAll } from "./files.ts";
import { messageOf } from "./format.ts";
import type { FileRec } from "./types.ts";
import { onUploaded } from "./upload.ts";

export type SortKey = "name" | "size" | "date";
export interface Sort {
  key: SortKey;
  desc: boolean;
}

/** Up to this many entries a folder is sorted at every page as it loads (a few ms); beyond, once loaded. */
const SORT_WHILE_LOADING = 5000;

const collator = new Intl.Collator(undefined, { numeric: true, sensitivity: "base" });

/** Folders first, then by the chosen key (names compared naturally: "file 2" before "file 10"). */
export function sortFiles(files: FileRec[], sort: Sort): FileRec[] {
  const dir = sort.desc ? -1 : 1;
  const by: Record<SortKey, (a: FileRec, b: FileRec) => number> = {
    name: (a, b) => collator.compare(a.name, b.name),
    size: (a, b) => a.size - b.size || collator.compare(a.name, b.name),
    date: (a, b) => a.updated_at.localeCompare(b.updated_at) || collator.compare(a.name, b.name),
  };
  return [...files].sort((a, b) => {
    const da = a.type === "directory" ? 0 : 1;
    const db = b.type === "directory" ? 0 : 1;
    return da - db || dir * by[sort.key](a, b);
  });
}

/** The entries and breadcrumb chain of a folder (undefined = top), reloaded after uploads into it. */
export function useFolder(dirId: string | undefined, sort: Sort) {
  const [files, setFiles] = useState<FileRec[]>([]);
  const [total, setTotal] = useState(0);
  const [chain, setChain] = useState<FileRec[]>([]);
  const [loading, setLoading] = useState(true);
  const [error, setError] = useState<string>();
  const [version, setVersion] = useState(0);
  const reload = useCallback(() => setVersion((v) => v + 1), []);

  useEffect(() => {
    const ac = new AbortController();
    setLoading(true);
    setError(undefined);
    if (dirId) ancestors(dirId).then(setChain, () => setChain([]));
    else setChain([]);
    listAll(
      dirId,
      (all, t) => {
        if (ac.signal.aborted) return;
        setFiles([...all]);
        setTotal(t);
      },
      ac.signal,
    )
      .catch((e) => {
        if (ac.signal.aborted) return;
        setFiles([]);
        setError(messageOf(e));
      })
      .finally(() => !ac.signal.aborted && setLoading(false));
    return () => ac.abort();
  }, [dirId, version]);

  useEffect(() => {
    let timer: ReturnType<typeof setTimeout> | undefined;
    // Many files finishing together cause one reload, not one each.
    const off = onUploaded((parent) => {
      if (parent !== dirId) return;
      clearTimeout(timer);
      timer = setTimeout(reload, 300);
    });
    return () => {
      off();
      clearTimeout(timer);
    };
  }, [dirId, reload]);

  // A big folder arrives a page of 1000 at a time, in the server's order (folders first, then by
  // name): sorting the whole list again at every page cost a 100,000-entry folder ~6 s of the
  // page's main thread. It is sorted once, when its last page is in.
  const sorted = useMemo(
    () => (loading && files.length > SORT_WHILE_LOADING ? files : sortFiles(files, sort)),
    [files, sort, loading],
  );
  return { files: sorted, total, chain, loading, error, reload };
}
