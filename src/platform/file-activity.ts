import { watch } from "node:fs";

/** Counts the changes the kernel reports on one file; `count` only grows. */
export interface FileActivity {
  readonly count: number;
}

const byPath = new Map<string, { count: number }>();

/**
 * Follows writes to `path` through inotify (fs.watch): `count` grows on
 * every event, in the event loop turn after the write. For a file written by
 * other processes or threads whose writes cannot be hooked (a SQLite WAL
 * another connection commits to). One watcher per path, shared, never
 * keeping the process alive. Undefined when the file cannot be watched
 * (missing, or a file system without change events): callers then ask every
 * time instead.
 */
export function fileActivity(path: string): FileActivity | undefined {
  const known = byPath.get(path);
  if (known) return known;
  const activity = { count: 0 };
  try {
    const watcher = watch(path, { persistent: false }, (event) => {
      activity.count++;
      // Replaced or removed: this watcher follows a file no longer in use; the next caller watches anew.
      if (event === "rename") {
        watcher.close();
        byPath.delete(path);
      }
    });
    watcher.on("error", () => {
      activity.count++;
      watcher.close();
      byPath.delete(path);
    });
  } catch {
    return undefined;
  }
  byPath.set(path, activity);
  return activity;
}
