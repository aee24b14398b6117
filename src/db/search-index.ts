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

/**
 * The organizations of those rows whose names hold a letter of Latin
 * Extended-B or Latin Extended Additional, or a combining mark, noted for
 * the search (migration 0024, org_name_letters): ~0.33 µs a row on the
 * bench's 1M library (its non-ASCII names tested by a GLOB), on rows
 * the insert just read.
 */
export const NOTE_NAME_LETTERS_SQL = `insert or ignore into org_name_letters (organization_id, kind)
  select distinct f.organization_id, k.kind
  from files f cross join (select 'rare' as kind, '*[ƀ-ɏḀ-ỿ]*' as pattern
    union all select 'marks', '*[' || char(768, 45, 879) || ']*') k
  where f.rowid in (select value from json_each(?))
    and length(f.name) <> octet_length(f.name)
    and f.name glob '*[ƀ-ɏḀ-ỿ' || char(768, 45, 879) || ']*' and f.name glob k.pattern`;

/**
 * Indexes the rows with these rowids and notes their names' letters,
 * one statement each (callers run it inside their insert's transaction).
 */
export function rowIndexer(c: Database.Database): (rowids: readonly (number | bigint)[]) => void {
  const index = c.prepare(INDEX_ROWS_SQL);
  const noteLetters = c.prepare(NOTE_NAME_LETTERS_SQL);
  return (rowids) => {
    if (rowids.length === 0) return;
    const list = JSON.stringify(rowids.map(Number));
    index.run(list);
    noteLetters.run(list);
  };
}
