import type Database from "better-sqlite3";
import { rowIndexer } from "../../db/search-index.ts";

/*
 * The row writes of scans, as data (WriteOp) and as the statements that
 * apply them. Shared by the server's own connection (watched.repo.ts) and
 * the scan writer's thread (scan-writer-worker.ts), so it imports nothing
 * of Attic's but types and the search index's statement
 * (db/search-index.ts): the thread's bundle carries it alone.
 */

/** Columns of a new host-backed row. */
export interface NewEntry {
  id: string;
  organization_id: string;
  owner_id: string | null;
  parent_id: string | null;
  name: string;
  path: string;
  type: "file" | "directory";
  size: number;
  mime_type: string;
  watched_folder_id: string;
  host_rel_path: string;
  host_mtime_ms: number | null;
  now: string;
  updated_at: string;
  /** The access root it inherits (its parent's acl_id). */
  acl_id: string | null;
}

/**
 * A row moved to another name and/or directory of its folder (a rename or
 * move on the host), or a row below a moved directory taking its new path.
 */
export interface MovedEntry {
  id: string;
  parentId: string;
  name: string;
  path: string;
  rel: string;
  mime: string;
  /** The access root it now inherits, unless it is one itself (a folder with grants of its own keeps them). */
  acl: string | null;
}

/** New size and mtime of a host file whose row is kept. */
export interface NewFacts {
  id: string;
  size: number;
  host_mtime_ms: number;
  updated_at: string;
}

/** The scan's progress columns of its watched folder (written beside its rows). */
export interface ScanProgress {
  files_seen: number;
  scan_errors: number;
  scan_rate: number;
}

/** One write of a scan; a batch of them is applied in one transaction. */
export type WriteOp =
  | { k: "insert"; row: NewEntry }
  | { k: "facts"; facts: NewFacts }
  | { k: "move"; move: MovedEntry }
  /** A directory's mtime as read, and its "device:inode" (kept when undefined). */
  | { k: "mtime"; id: string; mtimeMs: number | null; inode?: string }
  | { k: "delete"; folderId: string; rel: string }
  | { k: "progress"; folderId: string; progress: ScanProgress };

/**
 * The scan's statements on connection `c`, and its bulk transaction: rows
 * inserted inside one reach the search index in one statement
 * (db/search-index.ts, migration 0023), before anything that could delete
 * or rename them and before commit, so other connections see the rows and
 * their index entries together.
 */
export function scanWrites(c: Database.Database) {
  // A row's path and access root are its parent's as they are when it is written (inserted or moved), not as the walk read
  // them: a folder renamed, moved or given its own grants while a scan runs is walked a folder at a time
  // (subtree-jobs.ts), and a row inserted below it after the walk passed its parent must follow the
  // change (a drive given private grants mid-scan left every row scanned afterwards readable by all).
  // Parents are read once per transaction (`parentOf`): within one, no other connection writes.
  const insert = c.prepare(
    `insert into files (id, organization_id, owner_id, parent_id, name, path, type, size, mime_type, hash,
       watched_folder_id, host_rel_path, host_mtime_ms, is_offline, is_deleted, created_at, updated_at, accessed_at,
       acl_id)
     values (@id, @organization_id, @owner_id, @parent_id, @name, @path, @type, @size, @mime_type, '',
       @watched_folder_id, @host_rel_path, @host_mtime_ms, 0, 0, @now, @updated_at, @now, @acl_id)`,
  );
  const parentRow = c.prepare<[string], { path: string; acl: string | null }>(
    "select path, acl_id as acl from files where id = ?",
  );
  const updateFacts = c.prepare(
    `update files set size = @size, host_mtime_ms = @host_mtime_ms, hash = '', is_offline = 0,
       updated_at = @updated_at where id = @id`,
  );
  // A folder that is an access root of its own (its own grants) stays one wherever it goes; every other
  // row takes its new parent's (migration 0007: acl_id is the nearest root at or above the row).
  const move = c.prepare<[MovedEntry], { path: string; acl: string | null; dir: number }>(
    `update files set parent_id = @parentId, name = @name, path = @path, host_rel_path = @rel, mime_type = @mime,
       acl_id = CASE WHEN acl_id = id THEN id ELSE @acl END, is_offline = 0 where id = @id
     returning path, acl_id as acl, type = 'directory' as dir`,
  );
  const setMtime = c.prepare(
    "update files set host_mtime_ms = ?, host_inode = coalesce(?, host_inode) where id = ?",
  );
  // Range on host_rel_path ("/" is 0x2F, "0" is 0x30) so the (watched_folder_id, host_rel_path) index serves it.
  const delSubtree = c.prepare(
    `delete from files where watched_folder_id = @fid and
       (host_rel_path = @rel or (host_rel_path >= @rel || '/' and host_rel_path < @rel || '0'))`,
  );
  // The last host paths first: a row's children before it (each child's path extends its parent's), so
  // no delete cascades to a subtree of unbounded size.
  const delSome = c.prepare(
    `delete from files where rowid in (select rowid from files indexed by files_watched_idx
       where watched_folder_id = ? and host_rel_path <> '' order by host_rel_path desc limit ?)`,
  );
  const progress = c.prepare(
    "update watched_folders set files_seen = @files_seen, scan_errors = @scan_errors, scan_rate = @scan_rate where id = @id",
  );
  const begin = c.prepare("begin immediate");
  const commit = c.prepare("commit");
  const rollback = c.prepare("rollback");
  const indexRows = rowIndexer(c);
  /** Rowids inserted in the running bulk transaction and not yet in the search index; undefined outside one. */
  let unindexed: number[] | undefined;
  /** Directories' paths and access roots as read or written in the running bulk transaction. */
  let parents: Map<string, { path: string; acl: string | null } | undefined> | undefined;
  const parentOf = (id: string) => {
    if (parents?.has(id)) return parents.get(id);
    const found = parentRow.get(id);
    parents?.set(id, found);
    return found;
  };
  /** Indexes the rows inserted so far; runs before any change that fires the index's delete or update trigger. */
  const indexInserted = () => {
    if (unindexed === undefined || unindexed.length === 0) return;
    indexRows(unindexed);
    unindexed = [];
  };
  /** Inside a transaction: inserts from now on are indexed in bulk. */
  const startBulk = () => {
    unindexed = [];
    parents = new Map();
  };
  /** Indexes what is left, before commit. */
  const endBulk = () => indexInserted();

  const writes = {
    insertEntry: (entry: NewEntry) => {
      // A row without a parent (a mount at the top of the tree), or whose parent is gone (the insert
      // then fails on its foreign key), keeps what it was given.
      const parent = entry.parent_id === null ? undefined : parentOf(entry.parent_id);
      const row = parent ? { ...entry, path: `${parent.path}/${entry.name}`, acl_id: parent.acl } : entry;
      const { lastInsertRowid } = insert.run(row);
      // Outside a bulk transaction (the mount's row), the row is indexed at once, as files.repo.ts does.
      if (unindexed) unindexed.push(Number(lastInsertRowid));
      else indexRows([lastInsertRowid]);
      if (row.type === "directory") parents?.set(row.id, { path: row.path, acl: row.acl_id });
    },
    updateFacts: (f: NewFacts) => updateFacts.run(f),
    moveEntry: (m: MovedEntry) => {
      indexInserted();
      const parent = parentOf(m.parentId);
      const moved = move.get(parent ? { ...m, path: `${parent.path}/${m.name}`, acl: parent.acl } : m);
      // Rows below a moved directory are written next, from its row as it is now.
      if (moved?.dir) parents?.set(m.id, { path: moved.path, acl: moved.acl });
    },
    /** Stores a directory's mtime, and its "device:inode" when given. */
    setDirMtime: (id: string, mtimeMs: number | null, inode?: string) =>
      setMtime.run(mtimeMs, inode ?? null, id),
    /** Deletes the row at `rel` and everything below it (cascades to playback positions and tags). */
    deleteSubtree: (folderId: string, rel: string) => {
      indexInserted();
      delSubtree.run({ fid: folderId, rel });
      parents?.clear();
    },
    /** Deletes up to `limit` rows of the folder, never its mount directory; answers how many went. */
    deleteSome: (folderId: string, limit: number) => {
      indexInserted();
      return delSome.run(folderId, limit).changes;
    },
    setProgress: (folderId: string, p: ScanProgress) => progress.run({ id: folderId, ...p }),
    /** Applies one op. */
    apply(op: WriteOp): void {
      if (op.k === "insert") writes.insertEntry(op.row);
      else if (op.k === "facts") writes.updateFacts(op.facts);
      else if (op.k === "move") writes.moveEntry(op.move);
      else if (op.k === "mtime") writes.setDirMtime(op.id, op.mtimeMs, op.inode);
      else if (op.k === "delete") writes.deleteSubtree(op.folderId, op.rel);
      else writes.setProgress(op.folderId, op.progress);
    },
    /**
     * An open-ended bulk transaction, for a thread that applies ops as they
     * arrive (scan-writer-worker.ts): begin(), apply()..., then commit() or,
     * after an error, rollback().
     */
    begin(): void {
      begin.run();
      startBulk();
    },
    commit(): void {
      endBulk();
      commit.run();
      unindexed = undefined;
      parents = undefined;
    },
    rollback(): void {
      unindexed = undefined;
      parents = undefined;
      if (c.inTransaction) rollback.run();
    },
    /** Runs `fn` in one transaction whose inserted rows reach the search index in bulk. */
    bulkTransaction: <T>(fn: () => T): T =>
      c.transaction(() => {
        startBulk();
        try {
          const out = fn();
          endBulk();
          return out;
        } finally {
          unindexed = undefined;
          parents = undefined;
        }
      })(),
  };
  return writes;
}

export type ScanWrites = ReturnType<typeof scanWrites>;
