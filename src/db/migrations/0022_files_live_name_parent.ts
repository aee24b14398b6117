/**
 * The name index also holds each row's parent (issue 14). A search under a
 * folder ("a" under /Photos), or for a word some folders' paths hold
 * ("photos"), sorted by name, needs the rows of a set of folders in name
 * order. With the parent only on the row, a walk of the name order read
 * each row it passed to learn its folder (~3-16 µs), and the rows before
 * the first match (a music library's "01. …" tracks, a sixth of a 1M-row
 * library) made it give up; the exact plans then read every row of the
 * folder (0.4-0.9 s). With the parent in the index, the dense plan
 * (search.dense.ts folderWalk) tests it on the index entry against the set
 * of folders (~0.25 µs an entry, no row read). The index grows by the
 * parent's id (81 to 110 MB at 1M rows); built in ~3.5 s there, once.
 */
export default /* sql */ `
DROP INDEX files_live_name_idx;
CREATE INDEX files_live_name_idx ON files(organization_id, is_deleted, name COLLATE NOCASE, parent_id);
`;
