import type Database from "better-sqlite3";

/**
 * Adding rows to the search index (files_fts, migration 0011), where they
 * are inserted (migration 0023). Nothing indexes an inserted row but the
 * code that inserted it: files.repo.ts for one row, scan-writes.ts for a
 * scan's transaction in bulk. A row must reach the index in the transaction
 * that inserts it, and before anything in it deletes, renames or moves it
 * (the index's delete and update triggers remove its entries, and FTS5 must
 * not be asked to remove entries it never had).
 *
 * The indexed text is the one the index's external content view
 * (files_fts_source) and its triggers give: the name, and a directory's
 * full path, each padded with two spaces.
 */
export const INDEX_ROWS_SQL = `insert into files_fts (rowid, name, path)
  select rowid, name || '  ', case when type = 'directory' then path || '  ' else '' end
  from files where rowid in (select value from json_each(?))`;

/** Indexes the rows with these rowids, in one statement (callers run it inside their insert's transaction). */
export function rowIndexer(c: Database.Database): (rowids: readonly (number | bigint)[]) => void {
  const statement = c.prepare(INDEX_ROWS_SQL);
  return (rowids) => {
    if (rowids.length > 0) statement.run(JSON.stringify(rowids.map(Number)));
  };
}
