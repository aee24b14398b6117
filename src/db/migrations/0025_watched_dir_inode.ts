/**
 * A watched directory's identity on the host, "device:inode", as the last
 * scan or sync that read it saw it (src/domain/watched/dir-moves.ts). A
 * folder renamed or moved on the host keeps it, so the scan that finds the
 * folder gone from its old place and a new one elsewhere with the same
 * identity moves the row (its id, grants, tags, playback positions and share
 * links stay) instead of deleting it and indexing the new place as a new
 * folder, which took its parent's grants: a private folder renamed on the
 * host became readable by whoever read its parent. Null for files, rows of
 * uploads, and directories no scan has read since this migration (each is
 * filled the next time a scan reads or skips it). The partial index holds
 * directories alone (about one row in twenty of a media library).
 */
export default /* sql */ `
ALTER TABLE files ADD COLUMN host_inode TEXT;
CREATE INDEX files_watched_inode_idx ON files(watched_folder_id, host_inode) WHERE host_inode IS NOT NULL;
`;
