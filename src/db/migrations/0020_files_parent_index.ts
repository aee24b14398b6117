/**
 * An index of rows by their parent alone. `files.parent_id` references
 * `files(id)` ON DELETE CASCADE, so every row deleted from `files` makes
 * SQLite look for rows whose parent it was; with no index led by
 * `parent_id` (files_children_idx leads with the organization) each lookup
 * scanned a whole index: at 1M rows, deleting 100 files took 33 s (5 ms
 * with this index). Every delete pays it: a purge from the trash, files
 * gone from a watched folder, a watched folder removed, a stop's unfinished
 * copies.
 */
export default /* sql */ `
CREATE INDEX files_parent_idx ON files(parent_id);
`;
