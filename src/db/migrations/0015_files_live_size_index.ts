/**
 * Live rows of an organization by size, for searches sorted by size
 * (issue 14): the dense search plan (search.dense.ts) walks it from the
 * requested end and stops once a page is full, where sorting by size
 * otherwise reads and sorts every match ("mkv" over 1 GB: ~74k rows at 1M).
 * Partial on live rows, so trashed rows cost it nothing.
 */
export default /* sql */ `
CREATE INDEX files_live_size_idx ON files(organization_id, size) WHERE is_deleted = 0;
`;
