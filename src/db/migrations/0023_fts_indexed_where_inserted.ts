/**
 * Inserted rows reach the search index where they are inserted, not
 * through a trigger (issue 14). An AFTER INSERT trigger costs every insert
 * into files its run, even one whose WHEN clause skips it: replaying a
 * 1M-file scan's inserts through the scan's own statements
 * (scan-writes.ts, on a copy of the scanned schema), 30.8 and 27.5 µs a row
 * with the trigger against 22.2 and 22.3 without, commit included
 * unchanged (~9 µs). Scans skipped the trigger's work already (migration
 * 0014: files_fts_deferred) but not its cost.
 *
 * Now files.repo.ts indexes the one row it inserts, in the insert's
 * transaction, and scans index their transaction's rows in one statement
 * before anything in it deletes, renames or moves one, and before commit
 * (src/db/search-index.ts). The delete and update triggers stay: they fire
 * only when a row's indexed text changes.
 */
export default /* sql */ `
DROP TRIGGER files_fts_ai;
DROP TABLE files_fts_deferred;
`;
