import Database from "better-sqlite3";
import { type BetterSQLite3Database, drizzle } from "drizzle-orm/better-sqlite3";
import type { Logger } from "../log.ts";
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
 * The server connection's page cache (KiB). Pages missing from it come from
 * the OS's cache at ~1-2 µs each. Searching a scanned 1M-file library
 * filled it whole: at 32 instead of 64 MiB, peak RSS over
 * `scripts/bench/search-rest.ts` fell 306 -> 278 MiB with the same latency
 * (p50 / p95 / p99 11.7 / 57.3 / 86.5 -> 10.7 / 55.4 / 83.3 ms), and
 * `npm run bench -- paths` kept its req/s (docs/performance.md).
 */
export const CACHE_KIB = 32_768;

/**
 * Opens the database with the settings Attic relies on (WAL, foreign keys,
 * busy timeout) and applies pending migrations in one transaction each.
 */
export function openDb(opts: OpenDbOptions): Db {
  const options: Database.Options = opts.nativeBinding ? { nativeBinding: opts.nativeBinding as string } : {};
  const sqlite = new AtticDatabase(opts.file, options, opts.onQuery);
  sqlite.pragma("journal_mode = WAL");
  for (const pragma of CONNECTION_PRAGMAS) sqlite.pragma(pragma);
  sqlite.pragma(`cache_size = ${-CACHE_KIB}`);
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
