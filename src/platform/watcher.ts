import { type FSWatcher, readFileSync, watch } from "node:fs";
import { basename, join } from "node:path";

/** Live watches on the directories of one host tree. */
export interface DirWatch {
  /** Starts watching directory `rel` of the root ("" is the root); idempotent. Throws ENOSPC/EMFILE when the kernel refuses. */
  add(rel: string): void;
  /** Stops watching `rel` and every directory below it (they were removed). */
  remove(rel: string): void;
  close(): void;
}

export interface WatchDirsOptions {
  /** Quiet time before a batch of changed directories is delivered. */
  debounceMs: number;
  /** Receives the directories (relative to the root) whose entries changed: added, removed, renamed or written. */
  onChanges: (dirs: Set<string>) => void;
  /** A watch that failed after it started. */
  onError: (err: NodeJS.ErrnoException) => void;
  /**
   * One directory that cannot be watched (unreadable: EACCES/EPERM): it is
   * skipped, and only it; the rest of the tree stays live.
   */
  onSkip?: (rel: string, err: NodeJS.ErrnoException) => void;
  /**
   * The kernel's event queue overflowed (a burst while the event loop was
   * busy): events were lost, so some changed directories were never
   * reported. Only a rescan can tell which.
   */
  onOverflow?: () => void;
}

/**
 * The directory a watcher watches (relative to the root), kept on the
 * watcher itself so that one pair of listeners serves a whole tree: two
 * closures per directory held ~140 bytes more each (6 MiB of a 1M-file
 * tree's 50k directories, measured with a bare script).
 */
const REL = Symbol("rel");
type DirWatcher = FSWatcher & { [REL]: string };

/** Errors of one directory, not of the whole watch: skip it, keep the rest live. */
const LOCAL_ERRORS = new Set(["EACCES", "EPERM", "ENOTDIR", "ELOOP", "ENAMETOOLONG"]);

/**
 * Watches each directory of a tree with one inotify watch (`fs.watch`, not
 * recursive) and reports which directories changed, in debounced batches: a
 * burst of copies becomes one index update, and a batch waits at most five
 * debounce windows so a steady trickle is not held back. Only directories
 * are tracked, never files, so memory stays proportional to the directory
 * count (a per-file watcher such as chokidar held ~400 MB for 200k files).
 * Symlinks are never followed: only directories the index found are added.
 */
export function watchDirs(root: string, opts: WatchDirsOptions): DirWatch {
  const watchers = new Map<string, FSWatcher>();
  let pending = new Set<string>();
  let timer: NodeJS.Timeout | undefined;
  let firstAt = 0;
  let closed = false;
  const overflowed = () => {
    if (!closed) opts.onOverflow?.();
  };
  overflowListeners.add(overflowed);

  const deliver = () => {
    timer = undefined;
    const batch = pending;
    pending = new Set();
    if (batch.size > 0 && !closed) opts.onChanges(batch);
  };
  const changed = (rel: string) => {
    pending.add(rel);
    const now = Date.now();
    if (!timer) firstAt = now;
    clearTimeout(timer);
    timer = setTimeout(deliver, now - firstAt >= opts.debounceMs * 5 ? 0 : opts.debounceMs);
  };
  const drop = (rel: string) => {
    watchers.get(rel)?.close();
    watchers.delete(rel);
  };
  /** A watch on directory `rel` (throws as fs.watch does). */
  const open = (rel: string): DirWatcher => {
    const w = watch(join(root, rel), { persistent: false }, onChange) as DirWatcher;
    w[REL] = rel;
    w.on("error", onError);
    return w;
  };
  /**
   * An inotify watch follows its directory's inode, not its name: after
   * `mv d d.old; mkdir d` (or `rm -r d; mkdir d`) the watch of `d` reports
   * d.old's changes, or none, and the new `d` goes unwatched. The kernel
   * tells a watch that its own directory moved or went with an event named
   * after that directory: the name is then watched afresh, whatever is
   * there now. A child named like its directory raises the same event; the
   * new watch is made before the old one closes, so that on the same inode
   * (the kernel's watch is shared) no event is lost between them.
   */
  const rewatch = (rel: string, old: DirWatcher) => {
    if (closed || watchers.get(rel) !== old) return;
    let fresh: DirWatcher | undefined;
    let failed: NodeJS.ErrnoException | undefined;
    // No stat first (it could block the event loop on a network mount). Should a file now hold the
    // name, its watch reports its parent's changes harmlessly, and is made afresh in turn when the
    // file goes (its own event).
    try {
      fresh = open(rel);
    } catch (e) {
      failed = e as NodeJS.ErrnoException;
    }
    old.close();
    if (fresh) watchers.set(rel, fresh);
    else watchers.delete(rel);
    // Gone (ENOENT): the sync of its parent finds out, and a directory made there later is added then.
    if (!failed || failed.code === "ENOENT") return;
    if (failed.code && LOCAL_ERRORS.has(failed.code)) opts.onSkip?.(rel, failed);
    else opts.onError(failed);
  };
  function onChange(this: DirWatcher, event: string, name: string | null) {
    const rel = this[REL];
    countEvent();
    changed(rel);
    if (event === "rename" && name === basename(join(root, rel))) rewatch(rel, this);
  }
  function onError(this: DirWatcher, err: NodeJS.ErrnoException) {
    const rel = this[REL];
    drop(rel);
    // A watched directory that vanished is news for its parent, not a failure.
    if (err.code === "ENOENT" || err.code === "EPERM") changed(rel);
    else opts.onError(err);
  }

  return {
    add(rel) {
      if (closed || watchers.has(rel)) return;
      let w: DirWatcher;
      try {
        w = open(rel);
      } catch (e) {
        const err = e as NodeJS.ErrnoException;
        // Gone since it was indexed: news for the index, like a removal.
        if (err.code === "ENOENT") return changed(rel);
        if (err.code && LOCAL_ERRORS.has(err.code)) return opts.onSkip?.(rel, err);
        throw err; // ENOSPC, EMFILE: the kernel's budget, a matter for the whole folder
      }
      watchers.set(rel, w);
    },
    remove(rel) {
      for (const key of [...watchers.keys()]) {
        if (key === rel || rel === "" || key.startsWith(`${rel}/`)) drop(key);
      }
    },
    close() {
      closed = true;
      overflowListeners.delete(overflowed);
      clearTimeout(timer);
      for (const w of watchers.values()) w.close();
      watchers.clear();
    },
  };
}

/**
 * Events delivered in this turn of the event loop, over every watch of the
 * process: they all share libuv's one inotify queue, which libuv reads
 * until it is empty in one go. A turn that delivers the queue's whole
 * capacity found it full, and the kernel dropped what came next (it queues
 * an overflow event, which libuv does not pass on, and which may take one
 * of the slots: 1% of slack). Every tree watched may have lost events then.
 */
let burst = 0;
let overflowAt: number | undefined;
const overflowListeners = new Set<() => void>();
function countEvent(): void {
  if (burst++ > 0) return;
  setImmediate(() => {
    overflowAt ??= Math.floor(maxQueuedEvents() * 0.99);
    const full = burst >= overflowAt;
    burst = 0;
    if (full) for (const listener of [...overflowListeners]) listener();
  });
}

/** The kernel's inotify event queue length (`fs.inotify.max_queued_events`; 16384 where it cannot be read). */
function maxQueuedEvents(): number {
  return inotifyLimit("max_queued_events") ?? 16_384;
}

/** A positive number of /proc/sys/fs/inotify, or undefined where it cannot be read (not Linux). */
function inotifyLimit(name: "max_queued_events" | "max_user_watches"): number | undefined {
  try {
    const n = Number(readFileSync(`/proc/sys/fs/inotify/${name}`, "utf8").trim());
    return Number.isFinite(n) && n > 0 ? n : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The kernel's per-user inotify watch budget (`fs.inotify.max_user_watches`),
 * or undefined where it cannot be read (not Linux).
 */
export function maxUserWatches(): number | undefined {
  return inotifyLimit("max_user_watches");
}
