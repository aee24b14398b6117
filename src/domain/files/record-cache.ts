/**
 * File records (row and tags) as last read, kept until the database
 * changes: a file's record and its downloads and ranges each start by
 * reading the same row, and a player seeking through a video asks for it
 * hundreds of times between two writes. `changed` is a changeWatch
 * (db/change-watch.ts): any write, through this connection or another, empties
 * the cache before the next read, so a record is never staler than a query
 * would be. Only the read is saved: callers still check the caller's access
 * on the row every time. Entries are keyed by organization and id, bounded
 * by count (oldest read first out); the records are shared, so callers must
 * not change them. Misses are not kept.
 */
export function createRecordCache<T>(watch: { changed(): boolean }, maxEntries = 10_000) {
  const records = new Map<string, T>();
  return {
    get(organizationId: string, id: string, read: () => T | undefined): T | undefined {
      if (watch.changed()) records.clear();
      const key = `${organizationId}/${id}`;
      const hit = records.get(key);
      if (hit !== undefined) return hit;
      const record = read();
      if (record === undefined) return undefined;
      if (records.size >= maxEntries) records.delete(records.keys().next().value!);
      records.set(key, record);
      return record;
    },
  };
}
