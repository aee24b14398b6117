/**
 * The search index, smaller and able to answer short terms (issue 14).
 *
 * - Every row's name is indexed, and the full path of directories only. A
 *   file's path is its folder's path plus its name, so a term is in a file's
 *   path exactly when it is in the name or in the path of the folder holding
 *   it (search.query.ts resolves the second through the folder rows).
 *   Indexing every file's full path was about two thirds of the index's size
 *   and of the time to index a file, and a deep tree repeated its folder
 *   names in the index once per file below them. Given up: a term spanning
 *   the last "/" of a file's path ("2019/IMG"); spans between folders
 *   ("Photos/2019") still match.
 * - Indexed text is padded with two spaces (the view files_fts_source is the
 *   external content): then every character begins at least one trigram, so
 *   the rows holding "zo" are exactly those indexed under a trigram that
 *   starts with "zo" ("zoe", "zo ", "zo-"...). files_fts_terms (fts5vocab)
 *   lists those trigrams by range; search.repo.ts ORs them. The padding never
 *   matches a query term (terms are split on white space).
 *
 * Rebuilding the index reads every row once (about 10–15 s per million rows
 * on this 2-core machine), at the first start of this version.
 */
export default /* sql */ `
DROP TRIGGER files_fts_ai;
DROP TRIGGER files_fts_ad;
DROP TRIGGER files_fts_au;
DROP TABLE files_fts;
CREATE VIEW files_fts_source AS
  SELECT rowid, name || '  ' AS name, CASE WHEN type = 'directory' THEN path || '  ' ELSE '' END AS path FROM files;
CREATE VIRTUAL TABLE files_fts USING fts5(
  name, path,
  content = 'files_fts_source', content_rowid = 'rowid',
  tokenize = 'trigram remove_diacritics 1 case_sensitive 0'
);
CREATE VIRTUAL TABLE files_fts_terms USING fts5vocab(files_fts, row);
CREATE TRIGGER files_fts_ai AFTER INSERT ON files BEGIN
  INSERT INTO files_fts(rowid, name, path)
  VALUES (new.rowid, new.name || '  ', CASE WHEN new.type = 'directory' THEN new.path || '  ' ELSE '' END);
END;
CREATE TRIGGER files_fts_ad AFTER DELETE ON files BEGIN
  INSERT INTO files_fts(files_fts, rowid, name, path)
  VALUES ('delete', old.rowid, old.name || '  ', CASE WHEN old.type = 'directory' THEN old.path || '  ' ELSE '' END);
END;
CREATE TRIGGER files_fts_au AFTER UPDATE OF name, path, type ON files BEGIN
  INSERT INTO files_fts(files_fts, rowid, name, path)
  VALUES ('delete', old.rowid, old.name || '  ', CASE WHEN old.type = 'directory' THEN old.path || '  ' ELSE '' END);
  INSERT INTO files_fts(rowid, name, path)
  VALUES (new.rowid, new.name || '  ', CASE WHEN new.type = 'directory' THEN new.path || '  ' ELSE '' END);
END;
INSERT INTO files_fts(files_fts) VALUES ('rebuild');
`;
