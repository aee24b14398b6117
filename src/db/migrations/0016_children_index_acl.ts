/**
 * files_children_idx also holds each row's access root (acl_id), so that a
 * listing's folder-grants condition is answered from the index: the total of
 * a 100,000-entry folder is counted without reading a single row, and a deep
 * page skips the rows before it without reading them (it read each one only
 * to check its acl_id). Same order as before; only the last column is new.
 */
export default /* sql */ `
DROP INDEX files_children_idx;
CREATE INDEX files_children_idx ON files(organization_id, parent_id, is_deleted, (type = 'directory') DESC, name COLLATE NOCASE, name, acl_id);
`;
