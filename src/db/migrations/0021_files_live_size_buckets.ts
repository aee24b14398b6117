/**
 * Live rows of an organization by order of size, for searches sorted by
 * size (issue 14). files_live_size_idx holds files of 100 MiB and more
 * alone: a library without such files (or a page past them, or smallest
 * first) read and sorted every match, 2-3.5 s for a common letter at 1M
 * rows. An index of every row by its exact size puts each scanned row on a
 * random page (~30 % more CPU for a scan's inserts, migration 0015); this
 * one is keyed by a bucket of the size instead, its number of digits and
 * first two digits (SIZE_BUCKET in search.query.ts: sizes below 100 bytes
 * each a bucket of their own, 90 buckets a decade above; written without a
 * comma, which drizzle-kit's index columns cannot hold), so a scan's rows
 * land at the end of one of a few hundred runs, as in files_live_length_idx
 * (~8 % more for a scan's inserts, measured in docs/performance.md).
 * The dense plan (search.dense.ts) reads the buckets in order and sorts each
 * one's matches until a page is full. Deleted rows are left out: trash is
 * never searched.
 */
export default /* sql */ `
CREATE INDEX files_live_size_bucket_idx ON files(organization_id, length(size) * 100 + size / CASE length(size) WHEN 3 THEN 10 WHEN 4 THEN 100 WHEN 5 THEN 1000 WHEN 6 THEN 10000 WHEN 7 THEN 100000 WHEN 8 THEN 1000000 WHEN 9 THEN 10000000 WHEN 10 THEN 100000000 WHEN 11 THEN 1000000000 WHEN 12 THEN 10000000000 WHEN 13 THEN 100000000000 WHEN 14 THEN 1000000000000 WHEN 15 THEN 10000000000000 WHEN 16 THEN 100000000000000 WHEN 17 THEN 1000000000000000 WHEN 18 THEN 10000000000000000 WHEN 19 THEN 100000000000000000 ELSE 1 END) WHERE is_deleted = 0;
`;
