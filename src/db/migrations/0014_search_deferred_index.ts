/**
 * Lets a watched-folder scan write the search index in bulk (issue 14).
 *
 * Indexing rows one insert at a time through files_fts_ai cost ~27 µs a row
 * here, more than the rest of the insert; the same rows indexed by one
 * `INSERT INTO files_fts ... SELECT` cost ~3 µs each. While
 * files_fts_deferred holds a row, files_fts_ai skips its insert: the scanner
 * adds that row at the start of a write transaction, indexes the rows it
 * inserted itself before any other change to the tree and again before
 * commit, then removes it (watched.repo.ts bulkTransaction). The flag never
 * outlives the transaction that set it, so other connections never see it
 * and a crash rolls it back with the rows.
 */
export default /* sql */ `
CREATE TABLE files_fts_deferred (scan INTEGER NOT NULL);
DROP TRIGGER files_fts_ai;
CREATE TRIGGER files_fts_ai AFTER INSERT ON files WHEN NOT EXISTS (SELECT 1 FROM files_fts_deferred) BEGIN
  INSERT INTO files_fts(rowid, name, path)
  VALUES (new.rowid, new.name || '  ', CASE WHEN new.type = 'directory' THEN new.path || '  ' ELSE '' END);
END;
`;
