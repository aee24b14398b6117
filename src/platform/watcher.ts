import { readFileSync } from "node:fs";
import { watch } from "chokidar";

/** A live watch of a host tree; `close()` releases every kernel watch. */
export interface TreeWatch {
  /** Resolves once the initial walk has placed its watches. */
  ready: Promise<void>;
  close(): Promise<void>;
}

export interface WatchTreeOptions {
  /** True for absolute paths never watched (exclusions); the root is never passed. */
  ignored: (path: string) => boolean;
  /** Quiet time before a batch of changes is delivered. */
  debounceMs: number;
  /** Receives the absolute paths that changed (added, changed, removed, renamed from or to). */
  onChanges: (paths: Set<string>) => void;
  /** A watch failure (ENOSPC when the kernel's watch budget is exhausted, EMFILE, ...). */
  onError: (err: NodeJS.ErrnoException) => void;
}

/**
 * Watches a directory tree with chokidar (inotify on Linux, one watch per
 * directory), never following symlinks, and delivers changes in debounced
 * batches: a burst of copies becomes one index update. A batch waits at most
 * 5 debounce windows, so a steady trickle of changes is not held back forever.
 */
export function watchTree(root: string, opts: WatchTreeOptions): TreeWatch {
  const watcher = watch(root, {
    ignoreInitial: true,
    followSymlinks: false,
    persistent: true,
    ignorePermissionErrors: true,
    atomic: false,
    ignored: (path: string) => path !== root && opts.ignored(path),
  });
  let pending = new Set<string>();
  let timer: NodeJS.Timeout | undefined;
  let firstAt = 0;
  const deliver = () => {
    timer = undefined;
    const batch = pending;
    pending = new Set();
    if (batch.size > 0) opts.onChanges(batch);
  };
  watcher.on("all", (_event, path) => {
    pending.add(path);
    const now = Date.now();
    if (!timer) firstAt = now;
    clearTimeout(timer);
    const wait = now - firstAt >= opts.debounceMs * 5 ? 0 : opts.debounceMs;
    timer = setTimeout(deliver, wait);
  });
  watcher.on("error", (err) => opts.onError(err as NodeJS.ErrnoException));
  const ready = new Promise<void>((resolve) => watcher.once("ready", () => resolve()));
  return {
    ready,
    async close() {
      clearTimeout(timer);
      await watcher.close();
    },
  };
}

/**
 * The kernel's per-user inotify watch budget (`fs.inotify.max_user_watches`),
 * or undefined where it cannot be read (not Linux).
 */
export function maxUserWatches(): number | undefined {
  try {
    const n = Number(readFileSync("/proc/sys/fs/inotify/max_user_watches", "utf8").trim());
    return Number.isFinite(n) && n > 0 ? n : undefined;
  } catch {
    return undefined;
  }
}
