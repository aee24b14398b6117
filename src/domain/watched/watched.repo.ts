import { availableParallelism } from "node:os";
import { and, asc, eq, sql } from "drizzle-orm";
import { withoutMoves } from "../../db/change-watch.ts";
import { WalCheckpointer } from "../../db/checkpointer.ts";
import type { Db } from "../../db/client.ts";
import { files, watchedFolders } from "../../db/schema.ts";
import { writeSignalOf } from "../../db/write-signal.ts";
import type { AccessView } from "../access/access.ts";
import { readableBy } from "../files/files.repo.ts";
import { ScanWriterThread } from "./scan-writer.ts";
import { type ScanProgress, scanWrites } from "./scan-writes.ts";

export type WatchedFolderRow = typeof watchedFolders.$inferSelect;
export type FileRow = typeof files.$inferSelect;

/** A row of a watched folder's subtree, as the scanner compares it with the host. */
export interface IndexedChild {
  id: string;
  name: string;
  type: string;
  size: number;
  host_mtime_ms: number | null;
  is_offline: number;
  acl_id: string | null;
  /** A directory's "device:inode" at its last read (dir-moves.ts). */
  host_inode: string | null;
}

/** A directory row that a new host directory of the same identity may be (dir-moves.ts). */
export interface MoveCandidate {
  id: string;
  rel: string;
  mtimeMs: number | null;
  acl: string | null;
}

/** The progress columns a scan writes back. */
export type FolderProgress = Partial<
  Pick<
    WatchedFolderRow,
    | "status"
    | "status_message"
    | "files_seen"
    | "files_indexed"
    | "scan_errors"
    | "scan_rate"
    | "last_scan_started_at"
    | "last_scan_finished_at"
    | "root_device"
    | "root_was_mount"
  >
>;

/** The automatic checkpoint threshold (pages) while scans write: a safety net, never reached when they keep up. */
const SCAN_AUTOCHECKPOINT = 40_000;
/**
 * SQLite's page cache (KiB) while scans run. A scan touches every page of
 * the tree's indexes once or a few times, so a bigger cache only fills with
 * pages read again from the OS's cache (outside the process) at about the
 * same cost: at 200k files a 1 GiB cache scanned no faster than 64 MiB. At
 * 1M files the 64 MiB cache was a fifth of the server's resident set.
 */
const SCAN_CACHE_KIB = 16_384;
/**
 * The page cache (KiB) of the scan writer's thread (scan-writer.ts). Its
 * inserts read the indexes' pages from the OS's cache about as fast: 2 or
 * 4 MiB scanned as fast as 16 (200k and 1M files, build/attic on two
 * CPUs), with 12 MiB less resident (1M: peak 249 against 261 MiB in one
 * pair of runs).
 */
const SCAN_THREAD_CACHE_KIB = 4096;

/**
 * Queries of the watched-folders area. CRUD goes through drizzle; the scan
 * path uses prepared better-sqlite3 statements, since it runs hundreds of
 * thousands of times per scan and drizzle's query building would dominate.
 */
export function createWatchedRepo(db: Db, opts: { scanThread?: boolean } = {}) {
  const c = db.$client;
  const children = c.prepare<[string, string], IndexedChild>(
    `select id, name, type, size, host_mtime_ms, is_offline, acl_id, host_inode from files
     where organization_id = ? and parent_id = ? and is_deleted = 0`,
  );
  // "(type = 'directory') = 1" is files_children_idx's own key (migration 0013): the index finds the
  // directories alone, where "type = 'directory'" read every child's row to check it (a rescan does
  // this once per directory: 1M row reads over a 1M-file tree).
  const childDirs = c.prepare<[string, string], IndexedChild>(
    `select id, name, type, size, host_mtime_ms, is_offline, acl_id, host_inode from files
     where organization_id = ? and parent_id = ? and is_deleted = 0 and (type = 'directory') = 1`,
  );
  const byRel = c.prepare<
    [string, string],
    { id: string; path: string; type: string; acl: string | null; knownInode: string | null }
  >(
    `select id, path, type, acl_id as acl, host_inode as knownInode from files
     where watched_folder_id = ? and host_rel_path = ? and is_deleted = 0`,
  );
  const dirsByInode = c.prepare<[string, string], MoveCandidate>(
    `select id, host_rel_path as rel, host_mtime_ms as mtimeMs, acl_id as acl from files indexed by files_watched_inode_idx
     where watched_folder_id = ? and host_inode = ? and is_deleted = 0 and type = 'directory' and host_rel_path <> ''`,
  );
  const setOffline = c.prepare(
    "update files set is_offline = ? where watched_folder_id = ? and is_offline <> ?",
  );
  const mount = c.prepare<
    [string],
    { id: string; path: string; knownMtime: number | null; acl: string | null; knownInode: string | null }
  >(
    `select id, path, host_mtime_ms as knownMtime, acl_id as acl, host_inode as knownInode from files
     where watched_folder_id = ? and host_rel_path = '' and is_deleted = 0`,
  );
  const anyFile = c.prepare<[string], { x: number }>(
    "select 1 as x from files where watched_folder_id = ? and type = 'file' and is_deleted = 0 limit 1",
  );
  // Slices of a folder's rows in host path order (slices.ts): bounds from the index alone, then the rows between.
  const relAt = c.prepare<[string, string, number], { rel: string }>(
    `select host_rel_path as rel from files indexed by files_watched_idx
     where watched_folder_id = ? and host_rel_path > ? order by host_rel_path limit 1 offset ?`,
  );
  const lastRel = c.prepare<[string], { rel: string | null }>(
    "select max(host_rel_path) as rel from files indexed by files_watched_idx where watched_folder_id = ?",
  );
  const countFilesIn = c.prepare<[string, string, string], { n: number }>(
    `select count(*) as n from files indexed by files_watched_idx
     where watched_folder_id = ? and host_rel_path > ? and host_rel_path <= ? and type = 'file' and is_deleted = 0`,
  );
  const dirRelsIn = c.prepare<[string, string, string], { rel: string }>(
    `select host_rel_path as rel from files indexed by files_watched_idx
     where watched_folder_id = ? and host_rel_path > ? and host_rel_path <= ? and type = 'directory' and is_deleted = 0`,
  );
  const unhashed = c.prepare<[string, string, number], { id: string; host_rel_path: string; size: number }>(
    `select id, host_rel_path, size from files indexed by files_watched_idx
     where watched_folder_id = ? and host_rel_path > ? and type = 'file' and hash = ''
       and is_offline = 0 and is_deleted = 0
     order by host_rel_path limit ?`,
  );
  const setHash = c.prepare("update files set hash = ? where id = ? and size = ? and host_mtime_ms = ?");
  // FTS5's incremental merge (index-merge.ts): a negative count first gathers every segment into one merge.
  const mergeFts = c.prepare("insert into files_fts(files_fts, rank) values('merge', ?)");
  const totalChanges = c.prepare("select total_changes() as n").pluck();
  /** Checkpoints beside scans' writes; none for an in-memory database. */
  const aside = c.memory ? undefined : new WalCheckpointer(c.name);
  const writes = scanWrites(c);
  /**
   * Scans' row writes on a thread of their own (scan-writer.ts) where the
   * process may run on more than one CPU: on one (a NAS's single core, a
   * server pinned with taskset) the thread only shares that CPU with the
   * walk, and messages, a second isolate and a second connection cost more
   * than they save (build/attic pinned to one CPU: 200k-file scan ~25 %
   * slower, ~35 MiB more RSS). None for an in-memory database.
   */
  const threaded = opts.scanThread ?? availableParallelism() > 1;
  const scanThread =
    c.memory || !threaded
      ? undefined
      : new ScanWriterThread({
          file: c.name,
          cacheKib: SCAN_THREAD_CACHE_KIB,
          autocheckpoint: SCAN_AUTOCHECKPOINT,
          serverWrites: writeSignalOf(c),
        });

  /** The small page cache of bulk work (scans, hashing): SCAN_CACHE_KIB while anyone holds it. */
  const holdSmallCache = heldSetting(() => {
    const saved = c.pragma("cache_size", { simple: true }) as number;
    c.pragma(`cache_size = ${-SCAN_CACHE_KIB}`);
    return () => c.pragma(`cache_size = ${saved}`);
  });
  /** Scans' checkpoint settings: the automatic threshold raised, checkpoints on the checkpointer's thread. */
  const holdScanCheckpoints = heldSetting(() => {
    const saved = c.pragma("wal_autocheckpoint", { simple: true }) as number;
    c.pragma(`wal_autocheckpoint = ${SCAN_AUTOCHECKPOINT}`);
    return () => {
      c.pragma(`wal_autocheckpoint = ${saved}`);
      void aside?.stop();
      void scanThread?.stop();
    };
  });
  return {
    /** Live rows directly under a directory row. */
    children: (orgId: string, parentId: string) => children.all(orgId, parentId),
    /** Live directory rows directly under a directory row. */
    childDirs: (orgId: string, parentId: string) => childDirs.all(orgId, parentId),
    /** The row mirroring host path `rel` of folder `fid` ("" is the mount directory). */
    byRel: (fid: string, rel: string) => byRel.get(fid, rel),
    /** Live directory rows of folder `fid` (its mount aside) last read with host identity `inode`. */
    dirsByInode: (fid: string, inode: string) => dirsByInode.all(fid, inode),
    /** Inserts a host-backed row (the mount directory; scans send WriteOps to `apply`). */
    insertEntry: writes.insertEntry,
    setDirMtime: writes.setDirMtime,
    /** Deletes up to `limit` rows of the folder, never its mount directory; answers how many went. */
    deleteSome: writes.deleteSome,
    /** Applies one of a scan's writes (scan-writes.ts). */
    apply: writes.apply,
    /**
     * Runs `fn` in one transaction whose inserted rows reach the search
     * index in bulk (db/search-index.ts): before anything that could delete or
     * rename them, and before commit. Searches on other connections see the
     * rows and their index entries together, at commit.
     */
    bulkTransaction: writes.bulkTransaction,
    /**
     * Applies scans' batches on a thread of their own (scan-writer.ts);
     * undefined for an in-memory database. When it has `failed`, callers
     * write through bulkTransaction above.
     */
    scanThread,
    /**
     * A running scan's progress: written by the scan writer's thread when
     * it runs (the server's connection would wait for the thread's
     * transaction, holding the event loop), else here.
     */
    reportProgress: (fid: string, p: ScanProgress) => {
      if (!scanThread?.post({ k: "progress", folderId: fid, progress: p })) writes.setProgress(fid, p);
    },
    setOffline: (fid: string, offline: boolean) => setOffline.run(offline ? 1 : 0, fid, offline ? 1 : 0),
    /** Whether the folder has any live file row. */
    hasFiles: (fid: string) => anyFile.get(fid) !== undefined,
    /** The host path `offset` rows past `after` in the folder, in host path order (from the index alone). */
    relAt: (fid: string, after: string, offset: number) => relAt.get(fid, after, offset)?.rel,
    /** The folder's last host path, if it has rows past its mount. */
    lastRel: (fid: string) => lastRel.get(fid)?.rel ?? undefined,
    /** Live file rows with host paths in (after, upTo]. */
    countFilesIn: (fid: string, after: string, upTo: string) => countFilesIn.get(fid, after, upTo)?.n ?? 0,
    /** Host paths of live directories in (after, upTo]. */
    dirRelsIn: (fid: string, after: string, upTo: string) =>
      dirRelsIn.all(fid, after, upTo).map((r) => r.rel),
    /** The directory row that mounts the folder in the tree, with the root's last seen mtime. */
    mountRow: (fid: string) => mount.get(fid),
    /** Files without a hash after host path `after`, in host path order (keyset pages: one pass is linear). */
    unhashed: (fid: string, after: string, limit: number) => unhashed.all(fid, after, limit),
    /**
     * Stores hashes in one transaction, each only if its row still describes
     * the bytes that were hashed; answers how many were stored.
     */
    setHashes: (hashes: readonly { id: string; hash: string; size: number; mtimeMs: number }[]): number =>
      hashes.length === 0
        ? 0
        : // A hash moves no row: directory totals and positions (files.repo.ts) stay valid through a
          // folder's hashing, which writes for hours on a big library.
          withoutMoves(c, () =>
            c.transaction(() => {
              let stored = 0;
              for (const h of hashes) stored += setHash.run(h.hash, h.id, h.size, h.mtimeMs).changes;
              return stored;
            })(),
          ),
    /**
     * Merges about `pages` pages of the search index's segments (index-merge.ts);
     * true when there was work. It moves no row of the tree, so directory
     * totals and positions stay valid (withoutMoves).
     */
    mergeIndex: (pages: number, start: boolean): boolean =>
      withoutMoves(c, () => {
        const before = totalChanges.get() as number;
        mergeFts.run(start ? -pages : pages);
        // FTS5's rule: a merge that did work changes two rows or more.
        return (totalChanges.get() as number) - before >= 2;
      }),
    /**
     * Copies the WAL into the database now (a passive checkpoint: readers
     * and the rest go on), so that SQLite's own checkpoint, which runs
     * inside the commit that grows the WAL past 1000 pages, rarely has to.
     */
    checkpoint: (): number => {
      const [r] = c.pragma("wal_checkpoint(PASSIVE)") as { log: number }[];
      return r?.log ?? 0;
    },
    /**
     * Checkpoints on a thread and connection of their own
     * (src/db/checkpointer.ts); undefined for an in-memory database. When
     * it has `failed`, callers use checkpoint() above.
     */
    checkpointer: aside,
    /**
     * This connection's settings while scans run, given back when the last
     * one releases them: a higher automatic checkpoint threshold (scans
     * checkpoint beside their writes, see batch-writer.ts, so that no
     * commit of theirs carries one) and a smaller page cache (SCAN_CACHE_KIB).
     * The checkpointer's thread and the scan writer's end with the last release.
     */
    holdScanSettings: (): (() => void) => {
      const cache = holdSmallCache();
      const checkpoints = holdScanCheckpoints();
      return () => {
        checkpoints();
        cache();
      };
    },
    /**
     * The small page cache alone, for hashing: like a scan, it reads every
     * file row once, and a 64 MiB cache filled with those pages stayed
     * resident after the hashing of a 1M-file folder.
     */
    holdSmallCache,
    /** Runs `fn` in one transaction. */
    transaction: <T>(fn: () => T): T => c.transaction(fn)(),

    all: () => db.select().from(watchedFolders).all(),
    listByOrg: (orgId: string) =>
      db
        .select()
        .from(watchedFolders)
        .where(eq(watchedFolders.organization_id, orgId))
        .orderBy(asc(watchedFolders.name))
        .all(),
    get: (orgId: string, id: string) =>
      db
        .select()
        .from(watchedFolders)
        .where(and(eq(watchedFolders.organization_id, orgId), eq(watchedFolders.id, id)))
        .get(),
    getById: (id: string) => db.select().from(watchedFolders).where(eq(watchedFolders.id, id)).get(),
    insertFolder: (row: typeof watchedFolders.$inferInsert) => db.insert(watchedFolders).values(row).run(),
    updateFolder: (
      id: string,
      patch: FolderProgress & { name?: string; path?: string; updated_at?: string },
    ) => db.update(watchedFolders).set(patch).where(eq(watchedFolders.id, id)).run(),
    /** Deletes the folder record and its mount directory (the subtree goes with deleteSome). */
    deleteFolder: (id: string) => {
      c.transaction(() => {
        db.delete(files)
          .where(and(eq(files.watched_folder_id, id), eq(files.host_rel_path, "")))
          .run();
        db.delete(watchedFolders).where(eq(watchedFolders.id, id)).run();
      })();
    },
    /** Real paths of every watched folder of the instance (overlap checks span organizations). */
    allPaths: () =>
      db
        .select({
          id: watchedFolders.id,
          path: watchedFolders.path,
          organization_id: watchedFolders.organization_id,
        })
        .from(watchedFolders)
        .all(),
    getFile: (orgId: string, id: string) =>
      db
        .select()
        .from(files)
        .where(and(eq(files.organization_id, orgId), eq(files.id, id), eq(files.is_deleted, false)))
        .get(),
    /** Live files the viewer may read among a folder's rows after host path `after`, up to `upTo` (a slice). */
    countReadableIn: (fid: string, viewer: AccessView, after: string, upTo: string): number =>
      db.get<{ n: number }>(
        sql`select count(*) as n from files indexed by files_watched_idx
          where watched_folder_id = ${fid} and host_rel_path > ${after} and host_rel_path <= ${upTo}
          and type = 'file' and is_deleted = 0 and ${readableBy(viewer)}`,
      )?.n ?? 0,
    /** Up to `limit` live files the viewer may read after host path `after`, skipping `offset`, by host path. */
    readableFilesAfter: (fid: string, viewer: AccessView, after: string, limit: number, offset: number) =>
      db
        .select()
        .from(files)
        .where(
          and(
            eq(files.watched_folder_id, fid),
            sql`${files.host_rel_path} > ${after}`,
            eq(files.type, "file"),
            eq(files.is_deleted, false),
            readableBy(viewer),
          ),
        )
        .orderBy(asc(files.host_rel_path))
        .limit(limit)
        .offset(offset)
        .all(),
    /**
     * Renames the folder and its mount directory; the paths below follow in
     * a move job (subtree-jobs.ts) the caller begins in the same transaction.
     */
    renameMount: (fid: string, newPath: string, name: string, now: string) => {
      c.transaction(() => {
        db.run(sql`update files set name = ${name}, path = ${newPath}, updated_at = ${now}
          where watched_folder_id = ${fid} and host_rel_path = ''`);
        db.update(watchedFolders).set({ name, updated_at: now }).where(eq(watchedFolders.id, fid)).run();
      })();
    },
  };
}

export type WatchedRepo = ReturnType<typeof createWatchedRepo>;

/**
 * A connection setting changed while anyone holds it: `apply` changes it
 * and answers how to give it back, which happens when the last holder
 * releases (each release function works once).
 */
function heldSetting(apply: () => () => void): () => () => void {
  let holders = 0;
  let restore: (() => void) | undefined;
  return () => {
    if (holders++ === 0) restore = apply();
    let held = true;
    return () => {
      if (!held) return;
      held = false;
      if (--holders === 0) restore?.();
    };
  };
}
