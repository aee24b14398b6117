import { useEffect, useState } from "preact/hooks";
import { api } from "../lib/api.ts";
import { messageOf } from "../lib/format.ts";
import { folderUrl, navigate, useRoute } from "../lib/router.ts";
import { listTags } from "../lib/tags.ts";
import type { FileRec, SearchResult, Tag } from "../lib/types.ts";
import { useSelection } from "../lib/useSelection.ts";
import { FileView } from "./FileView.tsx";
import { Preview } from "./Preview.tsx";
import { SearchFilters } from "./SearchFilters.tsx";

const PAGE = 100;
const MB = 1024 * 1024;

/** URL query → /search parameters (sizes are typed in MB, dates as days). */
function searchParams(q: URLSearchParams, offset: number): Record<string, string | number | undefined> {
  const mb = (k: string) => (q.get(k) ? Math.round(Number(q.get(k)) * MB) : undefined);
  const day = (k: string, end: boolean) =>
    q.get(k) ? new Date(`${q.get(k)}T${end ? "23:59:59.999" : "00:00:00"}`).toISOString() : undefined;
  return {
    q: q.get("q") ?? undefined,
    type: q.get("type") ?? undefined,
    tags: q.get("tags") ?? undefined,
    min_size: mb("min_mb"),
    max_size: mb("max_mb"),
    start_date: day("from", false),
    end_date: day("to", true),
    sort_by: q.get("sort") ?? "name",
    sort_order: q.get("order") ?? "asc",
    limit: PAGE,
    offset,
  };
}

/** "1 result", "1,234 results", or "about 80,000 results" when the server estimated the total. */
function resultCount(r: SearchResult): string {
  const n = r.total.toLocaleString();
  if (r.total_is_estimate) return `about ${n} results`;
  return `${n} result${r.total === 1 ? "" : "s"}`;
}

/** Instant search with filters; the filters live in the URL so a search can be reloaded or shared. */
export function Search() {
  const route = useRoute();
  const q = route.query;
  const [result, setResult] = useState<SearchResult>();
  const [files, setFiles] = useState<FileRec[]>([]);
  const [error, setError] = useState<string>();
  const [tags, setTags] = useState<Tag[]>([]);
  const key = (() => {
    const k = new URLSearchParams(q);
    k.delete("open");
    return k.toString();
  })();
  const sel = useSelection(files, key);
  useEffect(() => {
    listTags().then(setTags, () => {});
  }, []);
  useEffect(() => {
    const ac = new AbortController();
    const timer = setTimeout(() => {
      api<SearchResult>("GET", "/search", {
        query: searchParams(new URLSearchParams(key), 0),
        signal: ac.signal,
      })
        .then((r) => {
          setResult(r);
          setFiles(r.files);
          setError(undefined);
        })
        .catch((e) => !ac.signal.aborted && setError(messageOf(e)));
    }, 150);
    return () => {
      clearTimeout(timer);
      ac.abort();
    };
  }, [key]);
  const more = async () => {
    const r = await api<SearchResult>("GET", "/search", {
      query: searchParams(new URLSearchParams(key), files.length),
    });
    setFiles([...files, ...r.files]);
    // An estimated total can be above or below the real count: a short page is the end.
    setResult(
      r.files.length < PAGE ? { ...r, total: files.length + r.files.length, total_is_estimate: false } : r,
    );
  };
  /** Applies filter changes to the URL (empty values remove a filter); replaces the history entry. */
  const update = (patch: Record<string, string>) => {
    const n = new URLSearchParams(q);
    for (const [k, v] of Object.entries(patch)) {
      if (v) n.set(k, v);
      else n.delete(k);
    }
    n.delete("open");
    navigate(`/search?${n}`, true);
  };
  const open = (f: FileRec) => {
    if (f.type === "directory") navigate(folderUrl(f.id));
    else {
      const n = new URLSearchParams(q);
      n.set("open", f.id);
      navigate(`/search?${n}`);
    }
  };
  const openId = q.get("open");
  return (
    <section class="page search-page" aria-labelledby="search-title">
      <h1 id="search-title">{q.get("q") ? `Results for “${q.get("q")}”` : "Search"}</h1>
      <SearchFilters q={q} tags={tags} update={update} />
      {error ? (
        <p class="error" role="alert">
          {error}
        </p>
      ) : null}
      <p class="muted" aria-live="polite">
        {result ? resultCount(result) : "Searching…"}
      </p>
      <FileView
        files={files}
        mode="list"
        showFolder
        label="Search results"
        selected={sel.selected}
        focus={sel.focus}
        onFocus={sel.setFocus}
        onOpen={open}
        onSelect={sel.select}
        onSelectAll={sel.selectAll}
        emptyText={result ? "Nothing matches. Try fewer words or other filters." : ""}
      />
      {result && (result.total_is_estimate || files.length < result.total) ? (
        <button type="button" class="btn" onClick={more}>
          Show more
        </button>
      ) : null}
      {openId ? (
        <Preview
          id={openId}
          siblings={files.filter((f) => f.type !== "directory")}
          onNavigate={(id) => open({ id } as FileRec)}
          onClose={() => update({ open: "" })}
        />
      ) : null}
    </section>
  );
}
