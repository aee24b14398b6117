/**
 * Moves whose subtree is still being brought in step. Moving or renaming a
 * folder changes its own row at once; the paths (and, across access roots,
 * the acl ids) of the rows below it follow a folder at a time, in short
 * transactions, so that a folder of 100k items never holds the server's one
 * thread for seconds (tree.ts relocate). The row stays until the last of
 * them is written; a start finds any a stop interrupted and finishes them
 * before it serves (area.ts).
 */
export default /* sql */ `
CREATE TABLE subtree_moves (
  root_id TEXT PRIMARY KEY NOT NULL REFERENCES files(id) ON DELETE CASCADE,
  organization_id TEXT NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
  reassign INTEGER NOT NULL DEFAULT 0,
  from_acl TEXT,
  to_acl TEXT,
  started_at TEXT NOT NULL
);
`;
