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
 * Wraps prepared statements so each run/get/all reports its duration. The
 * operation label is the statement's verb (select, insert, update, delete).
 */
function instrument(sqlite: Database.Database, onQuery: (operation: string, seconds: number) => void): void {
  const prepare = sqlite.prepare.bind(sqlite);
  (sqlite as { prepare: unknown }).prepare = (source: string) => {
    const stmt = prepare(source);
    const operation = /^\s*(\w+)/.exec(source)?.[1]?.toLowerCase() ?? "other";
    for (const method of ["run", "get", "all"] as const) {
      const original = stmt[method].bind(stmt) as (...args: unknown[]) => unknown;
      (stmt as unknown as Record<string, unknown>)[method] = (...args: unknown[]) => {
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
}
