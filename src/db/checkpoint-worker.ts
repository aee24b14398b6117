/**
 * The WAL checkpointer's thread (src/db/checkpointer.ts starts it): a
 * connection of its own to the database, copying the write-ahead log into
 * the database file when asked, so that the copy and its two fsyncs never
 * hold the server's event loop.
 *
 * It imports nothing of Attic's but worker-db.ts: the build bundles it on
 * its own (scripts/build.ts), and from a checkout Node runs this file as is.
 */
import { parentPort, workerData } from "node:worker_threads";
import { type DbWorkerData, openWorkerDb } from "./worker-db.ts";

/** What the main thread passes. */
export type CheckpointWorkerData = DbWorkerData;

/** A reply: SQLite's wal_checkpoint row, or the error's message. */
export type CheckpointReply = { busy: number; log: number; checkpointed: number } | { error: string };

const db = openWorkerDb(workerData as CheckpointWorkerData);
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
