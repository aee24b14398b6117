/**
 * Large live files of an organization by size, for searches sorted by size
 * (issue 14): the dense search plan (search.dense.ts) walks it from the
 * largest down, or up from a minimum of at least 100 MiB, and stops once a
 * page is full, where sorting by size otherwise reads and sorts every match
 * ("mkv" over 1 GB: ~74k rows at 1M). Partial on files of 100 MiB or more
 * (LARGE_FILE_BYTES): an index of every row by size dirties a random page
 * per inserted row, ~30% more CPU for a watched-folder scan's inserts.
 */
export default /* sql */ `
CREATE INDEX files_live_size_idx ON files(organization_id, size) WHERE is_deleted = 0 AND size >= 104857600;
`;
