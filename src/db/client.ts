import Database from "better-sqlite3";
import { type BetterSQLite3Database, drizzle } from "drizzle-orm/better-sqlite3";
import type { Logger } from "../log.ts";
import { fileActivity } from "../platform/file-activity.ts";
import { MIGRATIONS } from "./migrations/index.ts";
import * as schema from "./schema.ts";
import { CONNECTION_PRAGMAS } from "./worker-db.ts";
import { announcedWrite, writeSignalOf } from "./write-signal.ts";

export type Db = BetterSQLite3Database<typeof schema> & { $client: Database.Database };

export interface OpenDbOptions {
  file: string;
  log?: Logger;
  /** Receives each statement's duration, for the query histogram. */
  onQuery?: (operation: string, seconds: number) => void;
  /** The native binding, when loaded by hand (the single executable). */
  nativeBinding?: unknown;
}

/**
 * Opens the database with the settings Attic relies on (WAL, foreign keys,
 * busy timeout) and applies pending migrations in one transaction each.
 */
export function openDb(opts: OpenDbOptions): Db {
  const options: Database.Options = opts.nativeBinding ? { nativeBinding: opts.nativeBinding as string } : {};
  const sqlite = new AtticDatabase(opts.file, options, opts.onQuery);
  sqlite.pragma("journal_mode = WAL");
  for (const pragma of CONNECTION_PRAGMAS) sqlite.pragma(pragma);
  sqlite.pragma("cache_size = -65536");
  migrate(sqlite, opts.log);
  return drizzle({ client: sqlite, schema, logger: false }) as Db;
}

/** Applies every migration newer than the database's `user_version`. */
export function migrate(sqlite: Database.Database, log?: Logger): void {
  const current = sqlite.pragma("user_version", { simple: true }) as number;
  for (const m of MIGRATIONS) {
    if (m.id <= current) continue;
    sqlite.transaction(() => {
      sqlite.exec(m.sql);
      sqlite.pragma(`user_version = ${m.id}`);
    })();
    log?.info({ migration: m.id, name: m.name }, "applied migration");
  }
}

/**
 * better-sqlite3 with every write statement announced to the scan writer's
 * thread while it runs (write-signal.ts), and, given `onQuery`, each
 * statement's run/get/all/iterate timed for the query histogram (the
 * operation label is the statement's verb: select, insert, update,
 * delete). Only better-sqlite3's public API is touched: statements are
 * neither cached nor shared, so whatever a caller (drizzle) does with
 * `raw()` stays with that caller's statement. Statements worth keeping are
 * prepared once by their repository (drizzle's `.prepare()` or
 * `$client.prepare`), not by a cache here.
 */
class AtticDatabase extends Database {
  private readonly onQuery: ((operation: string, seconds: number) => void) | undefined;
  private readonly writes: Int32Array;

  constructor(
    file: string,
    options: Database.Options,
    onQuery: ((operation: string, seconds: number) => void) | undefined,
  ) {
    super(file, options);
    this.onQuery = onQuery;
    this.writes = writeSignalOf(this);
  }

  // biome-ignore lint/complexity/noBannedTypes: the signature better-sqlite3's own prepare declares.
  override prepare<P extends unknown[] | {} = unknown[], R = unknown>(
    source: string,
  ): Database.Statement<P, R> {
    const stmt = super.prepare<P, R>(source);
    if (this.onQuery) timed(stmt, source, this.onQuery);
    if (!stmt.readonly) announced(stmt, this.writes);
    return stmt;
  }
}

/** Replaces `stmt`'s run/get/all with `around` given the statement and the original call. */
function wrapCalls(
  stmt: Database.Statement,
  around: (stmt: Database.Statement, call: () => unknown) => unknown,
) {
  for (const method of ["run", "get", "all"] as const) {
    const original = stmt[method] as (...args: unknown[]) => unknown;
    Object.defineProperty(stmt, method, {
      configurable: true,
      value(this: Database.Statement, ...args: unknown[]) {
        return around(this, () => original.apply(this, args));
      },
    });
  }
}

/** Times `stmt`'s run/get/all/iterate into `onQuery`. */
function timed(
  stmt: Database.Statement,
  source: string,
  onQuery: (operation: string, seconds: number) => void,
): void {
  const operation = /^\s*(\w+)/.exec(source)?.[1]?.toLowerCase() ?? "other";
  wrapCalls(stmt, (_, call) => {
    const start = performance.now();
    try {
      return call();
    } finally {
      onQuery(operation, (performance.now() - start) / 1000);
    }
  });
  // An iteration is timed from its start to its last row (or its early end), not only its creation.
  const iterate = stmt.iterate as (...args: unknown[]) => IterableIterator<unknown>;
  Object.defineProperty(stmt, "iterate", {
    value: function* timedIterate(this: Database.Statement, ...args: unknown[]) {
      const start = performance.now();
      try {
        yield* iterate.apply(this, args);
      } finally {
        onQuery(operation, (performance.now() - start) / 1000);
      }
    },
  });
}

/** Counts a write statement's run/get/all in `writes` while it runs (write-signal.ts). */
function announced(stmt: Database.Statement, writes: Int32Array): void {
  wrapCalls(stmt, (self, call) => announcedWrite(writes, call, !self.database.inTransaction));
}

/**
 * Runs `fn` in an immediate transaction (the write lock taken at BEGIN),
 * announced to the scan writer's thread like every write statement: BEGIN
 * IMMEDIATE is prepared inside better-sqlite3, out of AtticDatabase's reach.
 */
export function writeTransaction<T>(sqlite: Database.Database, fn: () => T): T {
  return announcedWrite(
    writeSignalOf(sqlite),
    () => sqlite.transaction(fn).immediate(),
    !sqlite.inTransaction,
  );
}

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
 * file (fileActivity): a commit elsewhere is seen from the next turn of the
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
