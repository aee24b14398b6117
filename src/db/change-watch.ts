/**
 * Whether the database changed since a cache was filled: per-connection
 * counters kept by SQLite itself. Apart from db/client.ts so that the
 * database threads' bundles (the search threads) need neither the schema
 * nor the migrations.
 */
import Database from "better-sqlite3";
import { fileActivity } from "../platform/file-activity.ts";

/** Bookkeeping statements, prepared without AtticDatabase's timer (it cost more than the counters themselves). */
const untimed = (sqlite: Database.Database, source: string) =>
  Database.prototype.prepare.call(sqlite, source) as Database.Statement;

/** Per connection: its `total_changes()` and how many of those changes moved nothing (see withoutMoves). */
const counters = new WeakMap<Database.Database, { total: Database.Statement; unmoved: number }>();
const countersOf = (sqlite: Database.Database) => {
  let c = counters.get(sqlite);
  if (!c)
    counters.set(sqlite, (c = { total: untimed(sqlite, "SELECT total_changes()").pluck(), unmoved: 0 }));
  return c;
};

/**
 * Tells whether the database may have changed since the last call: this
 * connection's `total_changes()` (every row written through it, committed
 * or not; ~0.3 µs) and SQLite's `data_version`, bumped by other
 * connections' commits (an `attic admin` command beside the server, another
 * thread). data_version opens a read transaction (~5 µs here, shared-memory
 * locks), so it is asked only after the kernel reported a write to the WAL
 * file, and while that one-shot watch rests after reporting one
 * (fileActivity): a commit elsewhere is seen from the next turn of the
 * event loop. Without a WAL to watch (an in-memory database, a file system
 * without change events) it is asked every time. Both counters are kept by
 * SQLite itself, so no write path can forget to report a change. For caches
 * of rows read on every request and written rarely: a write anywhere
 * empties them, which is always safe.
 */
export function changeWatch(sqlite: Database.Database): { changed(): boolean } {
  return watchCounters(sqlite, false);
}

/**
 * A changeWatch that overlooks the changes made inside withoutMoves on this
 * connection: for what depends on which rows exist, where and in what order
 * (a directory's count of children, positions in it), not on their other
 * columns. Every other write, and every commit of another connection,
 * counts as for changeWatch.
 */
export function movesWatch(sqlite: Database.Database): { changed(): boolean } {
  return watchCounters(sqlite, true);
}

/**
 * Runs `write` (synchronous: nothing else uses the connection meanwhile) and
 * tells movesWatch that the rows it changed kept their place: no row added,
 * removed, renamed, moved, restored or given other access. The hasher's
 * writes are such (a hash filled in), and so is the search index's merge
 * (index-merge.ts: it writes no row of files); a caller that is wrong here leaves
 * totals stale until the next other write, so use it for nothing else.
 */
export function withoutMoves<T>(sqlite: Database.Database, write: () => T): T {
  const c = countersOf(sqlite);
  const before = c.total.get() as number;
  try {
    return write();
  } finally {
    c.unmoved += (c.total.get() as number) - before;
  }
}

function watchCounters(sqlite: Database.Database, overlookUnmoved: boolean): { changed(): boolean } {
  const counts = countersOf(sqlite);
  const version = untimed(sqlite, "SELECT data_version FROM pragma_data_version").pluck();
  const wal = sqlite.memory ? undefined : fileActivity(`${sqlite.name}-wal`);
  let changes = -1;
  let versionSeen = -1;
  let activitySeen = -1;
  return {
    changed() {
      const c = (counts.total.get() as number) - (overlookUnmoved ? counts.unmoved : 0);
      let v = versionSeen;
      if (!wal || wal.count !== activitySeen) {
        if (wal) activitySeen = wal.count;
        v = version.get() as number;
      }
      if (c === changes && v === versionSeen) return false;
      changes = c;
      versionSeen = v;
      return true;
    },
  };
}
