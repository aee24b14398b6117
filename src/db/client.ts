import Database from "better-sqlite3";
import { type BetterSQLite3Database, drizzle } from "drizzle-orm/better-sqlite3";
import type { Logger } from "../log.ts";
import { MIGRATIONS } from "./migrations/index.ts";
import * as schema from "./schema.ts";

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
  const sqlite = new Database(opts.file, {
    ...(opts.nativeBinding ? { nativeBinding: opts.nativeBinding as string } : {}),
  });
  sqlite.pragma("journal_mode = WAL");
  sqlite.pragma("synchronous = NORMAL");
  sqlite.pragma("foreign_keys = ON");
  sqlite.pragma("busy_timeout = 5000");
  sqlite.pragma("temp_store = MEMORY");
  sqlite.pragma("cache_size = -65536");
  migrate(sqlite, opts.log);
  const db = drizzle({ client: sqlite, schema, logger: false }) as Db;
  if (opts.onQuery) instrument(sqlite, opts.onQuery);
  return db;
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
 * Wraps `prepare` so that (1) statements are prepared once per SQL text and
 * reused (drizzle prepares on every query; preparing cost more than running
 * the hot lookups), and (2) each run/get/all/iterate reports its duration.
 * The operation label is the statement's verb (select, insert, update, delete).
 *
 * A reused statement may have been left in raw (array) mode by drizzle, which
 * calls `raw()` right before the calls that want arrays; so every call that
 * did not just ask for raw mode resets it. A statement still busy with an
 * iterator is never handed out twice: a fresh one is prepared instead.
 */
function instrument(sqlite: Database.Database, onQuery: (operation: string, seconds: number) => void): void {
  const prepare = sqlite.prepare.bind(sqlite);
  const cache = new Map<string, Database.Statement>();
  const CACHE_MAX = 1000;
  const wrap = (source: string): Database.Statement => {
    const stmt = prepare(source);
    const operation = /^\s*(\w+)/.exec(source)?.[1]?.toLowerCase() ?? "other";
    const originalRaw = stmt.raw.bind(stmt);
    let rawRequested = false;
    (stmt as unknown as Record<string, unknown>).raw = (toggle?: boolean) => {
      rawRequested = toggle !== false;
      return toggle === undefined ? originalRaw() : originalRaw(toggle);
    };
    for (const method of ["run", "get", "all", "iterate"] as const) {
      const original = stmt[method].bind(stmt) as (...args: unknown[]) => unknown;
      (stmt as unknown as Record<string, unknown>)[method] = (...args: unknown[]) => {
        if (!rawRequested && method !== "run" && stmt.reader) originalRaw(false);
        rawRequested = false;
        const start = performance.now();
        try {
          return original(...args);
        } finally {
          onQuery(operation, (performance.now() - start) / 1000);
        }
      };
    }
    return stmt;
  };
  (sqlite as { prepare: unknown }).prepare = (source: string) => {
    const cached = cache.get(source);
    if (cached && !cached.busy) return cached;
    const stmt = wrap(source);
    if (!cached) {
      if (cache.size >= CACHE_MAX) cache.delete(cache.keys().next().value!);
      cache.set(source, stmt);
    }
    return stmt;
  };
}
