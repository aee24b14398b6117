/**
 * Live files of an organization by modification and by creation time, for
 * searches sorted by date (issue 14): the dense plan (search.dense.ts) walks
 * one from the newest or the oldest and stops once a page is full, and so
 * does browsing the whole library by date (search.broad.ts). Sorting by date
 * otherwise read and sorted every match: "Newest first" on a single common
 * letter at 1M rows took 3-4 s, browsing the library by date 1.3 s. And by
 * the length of their names, for searches by relevance (shortest names
 * first) with terms too short for the search index: a single common letter
 * by relevance read and sorted every row (4-5 s). And directories by name,
 * for searches of directories only: the name index walked ~83k rows at 1M
 * to find 50 directories (music tracks named "01. ..." come first), so
 * those searches read every match instead (0.3-1 s for a single letter).
 *
 * A scan inserts rows with created_at = now, so files_live_created_idx only
 * ever grows at its end, and files_live_length_idx at the end of one of a
 * few dozen runs (one per length, in rowid order); updated_at is the host
 * file's mtime, so each row of a first scan lands on a random page of
 * files_live_updated_idx (measured in docs/performance.md). Deleted rows are
 * left out: trash is never searched.
 */
export default /* sql */ `
CREATE INDEX files_live_updated_idx ON files(organization_id, updated_at) WHERE is_deleted = 0;
CREATE INDEX files_live_created_idx ON files(organization_id, created_at) WHERE is_deleted = 0;
CREATE INDEX files_live_length_idx ON files(organization_id, length(name)) WHERE is_deleted = 0;
CREATE INDEX files_live_dirs_idx ON files(organization_id, name COLLATE NOCASE) WHERE is_deleted = 0 AND type = 'directory';
`;
