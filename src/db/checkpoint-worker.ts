/**
 * The WAL checkpointer's thread (src/db/checkpointer.ts starts it): a
 * connection of its own to the database, copying the write-ahead log into
 * the database file when asked, so that the copy and its two fsyncs never
 * hold the server's event loop.
 *
 * It imports nothing of Attic's: the build bundles it on its own
 * (scripts/build.ts), and from a checkout Node runs this file as is.
 * Inside the single executable better-sqlite3's addon cannot be required
 * by path; the main thread passes the path of the copy it extracted, which
 * is dlopened here (the addon is a Node-API module: one per thread is fine,
 * and the SQLite inside is built thread-safe, SQLITE_THREADSAFE=2, so both
 * threads share one SQLite and its POSIX lock bookkeeping).
 */
import { parentPort, workerData } from "node:worker_threads";
import Database from "better-sqlite3";

/** What the main thread passes. */
export interface CheckpointWorkerData {
  file: string;
  /** better-sqlite3's addon file, inside the single executable; absent from a checkout. */
  addonPath?: string;
}

/** A reply: SQLite's wal_checkpoint row, or the error's message. */
export type CheckpointReply = { busy: number; log: number; checkpointed: number } | { error: string };

const data = workerData as CheckpointWorkerData;
let nativeBinding: object | undefined;
if (data.addonPath) {
  const module = { exports: {} as object };
  process.dlopen(module, data.addonPath);
  nativeBinding = module.exports;
}
// better-sqlite3 takes the loaded addon itself as nativeBinding, though its types say a path.
const options: Database.Options = { fileMustExist: true };
if (nativeBinding) options.nativeBinding = nativeBinding as unknown as string;
const db = new Database(data.file, options);
db.pragma("synchronous = NORMAL");
// A checkpoint copies frames from the log to the database file directly, past the page cache.
db.pragma("cache_size = -256");

parentPort?.on("message", (msg: unknown) => {
  if (msg === "close") {
    db.close();
    parentPort?.close();
    return;
  }
  let reply: CheckpointReply;
  try {
    const [row] = db.pragma("wal_checkpoint(PASSIVE)") as {
      busy: number;
      log: number;
      checkpointed: number;
    }[];
    reply = row ?? { busy: 0, log: 0, checkpointed: 0 };
  } catch (err) {
    reply = { error: err instanceof Error ? err.message : String(err) };
  }
  parentPort?.postMessage(reply);
});
