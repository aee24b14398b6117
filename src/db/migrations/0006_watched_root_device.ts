/**
 * What a watched folder's host root was when last seen with content: its
 * device id and whether it was a mount point. An empty root on the same
 * device was emptied on purpose (the index follows); an empty root that was
 * a mount point and is no longer one is an unplugged drive (the index waits).
 */
export default /* sql */ `
ALTER TABLE watched_folders ADD COLUMN root_device TEXT;
ALTER TABLE watched_folders ADD COLUMN root_was_mount INTEGER;
`;
