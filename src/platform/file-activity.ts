import { type FSWatcher, watch } from "node:fs";

/** Counts the changes the kernel reports on one file; `count` only grows. */
export interface FileActivity {
  readonly count: number;
}

/**
 * How long a watch stays closed after it reported a change (ms). Meanwhile
 * every read of `count` is a change, so callers ask every time, as they
 * would without a watch.
 */
export const REARM_MS = 100;

/**
 * A one-shot watch, armed again by a read of `count` once REARM_MS have
 * passed since it fired. The kernel builds an inotify event for every
 * write to a watched file, whether or not anyone reads it: SQLite writes
 * each WAL frame in two writes, and a scan thread committing a million
 * rows spent ~4.6 s of its ~38 s in the kernel's inotify code (perf, 1M
 * first scan), the 1M scan 43.4 → 36.9 s without the watch. Closed at its
 * first event, the watch costs the writer a loop turn's worth of events
 * per REARM_MS instead of one event per write.
 */
class OneShotActivity implements FileActivity {
  private readonly path: string;
  private seen = 0;
  private watcher: FSWatcher | undefined;
  private closedAt = 0;

  constructor(path: string) {
    this.path = path;
  }

  get count(): number {
    if (this.watcher) return this.seen;
    // Armed before the caller asks the file's owner (SQLite's data_version): a change after that is an event.
    if (performance.now() - this.closedAt >= REARM_MS) this.arm();
    return ++this.seen;
  }

  /** Watches the file; false when it cannot be watched (missing, or a file system without change events). */
  arm(): boolean {
    try {
      const watcher = watch(this.path, { persistent: false }, () => this.fired());
      watcher.on("error", () => this.fired());
      this.watcher = watcher;
      return true;
    } catch {
      this.closedAt = performance.now();
      return false;
    }
  }

  private fired(): void {
    this.seen++;
    this.watcher?.close();
    this.watcher = undefined;
    this.closedAt = performance.now();
  }
}

const byPath = new Map<string, OneShotActivity>();

/**
 * Follows writes to `path` through inotify (fs.watch): `count` grows in
 * the event loop turn after a write, and at every read while the watch
 * rests after reporting one (OneShotActivity). For a file written by other
 * processes or threads whose writes cannot be hooked (a SQLite WAL another
 * connection commits to). One watcher per path, shared, never keeping the
 * process alive. Undefined when the file cannot be watched (missing, or a
 * file system without change events): callers then ask every time instead.
 */
export function fileActivity(path: string): FileActivity | undefined {
  const known = byPath.get(path);
  if (known) return known;
  const activity = new OneShotActivity(path);
  if (!activity.arm()) return undefined;
  byPath.set(path, activity);
  return activity;
}
