/**
 * Changes to the rows below a folder still being made (src/domain/files/
 * subtree-jobs.ts). Moving, renaming, deleting, restoring or purging a folder
 * changes its own row at once; the rows below it follow a folder at a time,
 * in short transactions, so that a folder of 100k items never holds the
 * server's one thread for seconds. The row stays until the last of them is
 * written; a start finishes any a stop interrupted before it serves.
 * `kind`: move (with `reassign`, rows governed by `from_acl` take `to_acl`),
 * delete and restore (of the delete batch `batch`, stamped `at`), purge.
 */
export default /* sql */ `
CREATE TABLE subtree_jobs (
  root_id TEXT PRIMARY KEY NOT NULL REFERENCES files(id) ON DELETE CASCADE,
  organization_id TEXT NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
  kind TEXT NOT NULL,
  reassign INTEGER NOT NULL DEFAULT 0,
  from_acl TEXT,
  to_acl TEXT,
  batch TEXT,
  at TEXT,
  started_at TEXT NOT NULL
);
`;
