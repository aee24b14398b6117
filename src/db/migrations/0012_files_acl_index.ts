/**
 * Rows under an access root with its own grants (personal folders, shared
 * folders with a list), by root. Search uses it to subtract what a viewer
 * cannot read from the index's count of matches instead of counting every
 * match row by row (search.broad.ts). Partial: rows under the top's list
 * (most of a watched drive) carry no entry, so indexing them costs nothing.
 */
export default /* sql */ `
CREATE INDEX files_acl_idx ON files(acl_id) WHERE acl_id IS NOT NULL;
`;
