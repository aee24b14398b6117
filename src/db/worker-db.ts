/**
 * A connection to the server's database from a thread of its own
 * (checkpoint-worker.ts, domain/watched/scan-writer-worker.ts). It imports
 * nothing of Attic's: each thread's bundle (scripts/build.ts) carries it.
 * Inside the single executable better-sqlite3's addon cannot be required by
 * path; the main thread passes the path of the copy it extracted, which is
 * dlopened here (the addon is a Node-API module: one per thread is fine,
 * and the SQLite inside is built thread-safe, SQLITE_THREADSAFE=2, so the
 * threads share one SQLite and its POSIX lock bookkeeping).
 */
import Database from "better-sqlite3";

/**
 * Settings of every connection that writes the server's data, opened in
 * db/client.ts or on a thread: journal mode aside (it is the database's,
 * set once), each connection sets these for itself.
 */
export const CONNECTION_PRAGMAS = [
  "synchronous = NORMAL",
  "foreign_keys = ON",
  "busy_timeout = 5000",
  "temp_store = MEMORY",
] as const;

/** What the main thread passes to a database thread. */
export interface DbWorkerData {
  file: string;
  /** better-sqlite3's addon file, inside the single executable; absent from a checkout. */
  addonPath?: string;
}

/** Opens `data.file` (which must exist) with the addon the main thread names, if any. */
export function openWorkerDb(data: DbWorkerData): Database.Database {
  const options: Database.Options = { fileMustExist: true };
  if (data.addonPath) {
    const module = { exports: {} as object };
    process.dlopen(module, data.addonPath);
    // better-sqlite3 takes the loaded addon itself as nativeBinding, though its types say a path.
    options.nativeBinding = module.exports as unknown as string;
  }
  return new Database(data.file, options);
}
