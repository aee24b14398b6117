import type { Tag } from "../lib/types.ts";

/** The search filters (type, size, dates, sort, tags); their state lives in the URL query. */
export function SearchFilters(p: {
  q: URLSearchParams;
  tags: Tag[];
  update(patch: Record<string, string>): void;
}) {
  const chosen = new Set((p.q.get("tags") ?? "").split(",").filter(Boolean));
  const toggle = (id: string) => {
    if (!chosen.delete(id)) chosen.add(id);
    p.update({ tags: [...chosen].join(",") });
  };
  return (
    <form class="filters" onSubmit={(e) => e.preventDefault()} aria-label="Filters">
      <label class="field inline">
        <span>Type</span>
        <select value={p.q.get("type") ?? ""} onChange={(e) => p.update({ type: e.currentTarget.value })}>
          <option value="">Any</option>
          <option value="file">Files</option>
          <option value="directory">Folders</option>
        </select>
      </label>
      <label class="field inline">
        <span>Min MB</span>
        <input
          type="number"
          min="0"
          step="any"
          value={p.q.get("min_mb") ?? ""}
          onChange={(e) => p.update({ min_mb: e.currentTarget.value })}
        />
      </label>
      <label class="field inline">
        <span>Max MB</span>
        <input
          type="number"
          min="0"
          step="any"
          value={p.q.get("max_mb") ?? ""}
          onChange={(e) => p.update({ max_mb: e.currentTarget.value })}
        />
      </label>
      <label class="field inline">
        <span>From</span>
        <input
          type="date"
          value={p.q.get("from") ?? ""}
          onChange={(e) => p.update({ from: e.currentTarget.value })}
        />
      </label>
      <label class="field inline">
        <span>To</span>
        <input
          type="date"
          value={p.q.get("to") ?? ""}
          onChange={(e) => p.update({ to: e.currentTarget.value })}
        />
      </label>
      <label class="field inline">
        <span>Sort</span>
        <select
          value={`${p.q.get("sort") ?? "name"}:${p.q.get("order") ?? "asc"}`}
          onChange={(e) => {
            const [sort, order] = e.currentTarget.value.split(":");
            p.update({ sort: sort!, order: order! });
          }}
        >
          <option value="name:asc">Name A–Z</option>
          <option value="name:desc">Name Z–A</option>
          <option value="size:desc">Largest first</option>
          <option value="size:asc">Smallest first</option>
          <option value="updated_at:desc">Newest first</option>
          <option value="updated_at:asc">Oldest first</option>
        </select>
      </label>
      {p.tags.length ? (
        <fieldset class="tag-filter">
          <legend>Tags</legend>
          {p.tags.map((t) => (
            <button
              key={t.id}
              type="button"
              class="tag"
              style={{ "--tag": t.color }}
              aria-pressed={chosen.has(t.id)}
              onClick={() => toggle(t.id)}
            >
              {t.name}
            </button>
          ))}
        </fieldset>
      ) : null}
    </form>
  );
}
