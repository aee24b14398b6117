/**
 * Directory pages as last answered, kept until the database changes. A
 * listing is the UI's most frequent request and reads every row of a page;
 * between two writes the same page for the same view is the same answer.
 * `changed` is a changeWatch (db/change-watch.ts): any write, through this
 * connection or another, empties the cache before the next read, so a
 * listing is never staler than a query would be. Callers still check the
 * caller's access on every request; the key holds what decides which rows a
 * viewer sees (organization, parent, folder-grant view, page). Bounded by
 * the number of rows held; the answers are shared, so callers must not
 * change them.
 */
export function createPageCache<T extends { files: readonly unknown[] }>(
  watch: { changed(): boolean },
  maxRows = 20_000,
) {
  const pages = new Map<string, T>();
  let rows = 0;
  return {
    get(key: string, compute: () => T): T {
      if (watch.changed()) {
        pages.clear();
        rows = 0;
      }
      const hit = pages.get(key);
      if (hit) {
        // Most recently used last: eviction takes the oldest first.
        pages.delete(key);
        pages.set(key, hit);
        return hit;
      }
      const page = compute();
      if (page.files.length > maxRows) return page;
      while (rows + page.files.length > maxRows && pages.size > 0) {
        const [oldest, p] = pages.entries().next().value as [string, T];
        pages.delete(oldest);
        rows -= p.files.length;
      }
      pages.set(key, page);
      rows += page.files.length;
      return page;
    },
  };
}
