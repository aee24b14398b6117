/**
 * The scan writer's thread (scan-writer.ts starts it): a connection of its
 * own to the database that applies scans' row writes, so that a scan's
 * inserts (most of a first scan's time: ~50 µs a row on a table with this
 * many indexes) never hold the server's event loop.
 *
 * Ops arrive in small messages, each applied at once inside the open
 * transaction (the objects die young on both threads: queued ops kept for
 * a whole transaction were promoted to V8's old generation and grew the
 * heap). The transaction commits when it has lasted its budget, when a
 * message asks for it (`sync`), or when no message came for IDLE_COMMIT_MS;
 * a commit acknowledges every message applied in it ({ upTo }). It also
 * commits after any row when the server's connection announces a write
 * (db/write-signal.ts), and begins again only once that write is through,
 * so that the server never waits out a whole transaction on its event loop.
 *
 * It imports nothing of Attic's but scan-writes.ts, db/worker-db.ts and
 * db/write-signal.ts: the build bundles it on its own (scripts/build.ts),
 * and from a checkout Node runs this file as is.
 */
import { parentPort, workerData } from "node:worker_threads";
import { CONNECTION_PRAGMAS, type DbWorkerData, openWorkerDb } from "../../db/worker-db.ts";
import { markTransaction, WRITES, waitForAnnouncedWrites } from "../../db/write-signal.ts";
import { scanWrites, type WriteOp } from "./scan-writes.ts";

/** What the main thread passes: the database and this connection's settings while scans run. */
export interface ScanWriterData extends DbWorkerData {
  cacheKib: number;
  autocheckpoint: number;
  /** The server's connection's count of running writes (db/write-signal.ts writeSignalOf). */
  serverWrites: Int32Array;
}

/** A message: ops to apply (numbered), with how long a transaction may last, or "close". */
export interface ScanWriterMessage {
  seq: number;
  /**
   * The writer (one scan or sync) the ops belong to. Once a transaction
   * holding some of its ops failed, its later ops are refused, not applied:
   * they may depend on the rows rolled back (a directory's mtime stored
   * without its children would hide them from every quick rescan).
   */
  writer?: number;
  ops: WriteOp[];
  budgetMs: number;
  /** Commit right after these ops. */
  sync?: boolean;
}

/** A reply: every message up to `upTo` is committed, or was rolled back with the transaction (`error`). */
export type ScanWriterReply =
  | { upTo: number }
  | { upTo: number; error: string }
  /** One message refused (its writer failed before), the transaction open meanwhile untouched. */
  | { only: number; error: string };

/** A transaction no message added to for this long commits (the walk may be waiting on the host). */
const IDLE_COMMIT_MS = 5;
/**
 * Longest wait for the server's announced writes before a new transaction
 * begins anyway (then SQLite's busy timeout orders the two): a write holding
 * the lock this long is not one a scan should stand behind forever.
 */
const MAX_YIELD_MS = 200;
/**
 * For this long after the server's last write, transactions last at most
 * ACTIVE_BUDGET_MS, whatever the message asks: a write waits for the
 * commit of the transaction it interrupts, and a commit costs in
 * proportion to the rows before it (their pages to the WAL, their search
 * index entries). Someone using the server writes again soon; a quiet
 * server lets the scan have its long transactions.
 */
const ACTIVE_MS = 2000;
const ACTIVE_BUDGET_MS = 30;
/** When the thread last committed early for the server's write. */
let lastYield = Number.NEGATIVE_INFINITY;

const data = workerData as ScanWriterData;
const db = openWorkerDb(data);
// The server's own connection settings (foreign keys: deletes cascade to positions and tags), and the scan's.
for (const pragma of CONNECTION_PRAGMAS) db.pragma(pragma);
db.pragma(`cache_size = ${-data.cacheKib}`);
db.pragma(`wal_autocheckpoint = ${data.autocheckpoint}`);
const writes = scanWrites(db);

/**
 * The open transaction: when it began, the last message wholly applied in
 * it (what its commit acknowledges), the writers in it.
 */
let open: { t0: number; upTo: number; writers: Set<number> } | undefined;
/** The last message wholly applied. */
let applied = 0;
const serverWrites = data.serverWrites;
/** True when the server's connection is writing or about to: the open transaction should end now. */
const serverWaiting = () => Atomics.load(serverWrites, WRITES) > 0;
/** Writers whose ops a failed transaction held. */
const failed = new Set<number>();
let idleTimer: NodeJS.Timeout | undefined;

/** Commits the open transaction, if any; false when the commit failed (fail() has answered). */
function commit(): boolean {
  clearTimeout(idleTimer);
  if (!open) return true;
  const tx = open;
  open = undefined;
  try {
    writes.commit();
    markTransaction(serverWrites, false);
    parentPort?.postMessage({ upTo: tx.upTo } satisfies ScanWriterReply);
    return true;
  } catch (err) {
    fail(tx.upTo, tx.writers, err);
    return false;
  }
}

function fail(upTo: number, writers: Set<number>, err: unknown): void {
  for (const w of writers) failed.add(w);
  try {
    writes.rollback();
  } catch {}
  markTransaction(serverWrites, false);
  parentPort?.postMessage({
    upTo,
    error: err instanceof Error ? err.message : String(err),
  } satisfies ScanWriterReply);
}

parentPort?.on("message", (msg: ScanWriterMessage | "close") => {
  if (msg === "close") {
    commit();
    db.close();
    parentPort?.close();
    return;
  }
  if (msg.writer !== undefined && failed.has(msg.writer)) {
    parentPort?.postMessage({
      only: msg.seq,
      error: "an earlier write of this scan failed",
    } satisfies ScanWriterReply);
    return;
  }
  clearTimeout(idleTimer);
  const writers = open?.writers ?? new Set<number>();
  if (msg.writer !== undefined) writers.add(msg.writer);
  try {
    for (const op of msg.ops) {
      if (!open) {
        // The server's write goes first: it holds the event loop while it waits for the lock.
        waitForAnnouncedWrites(serverWrites, MAX_YIELD_MS);
        writes.begin();
        markTransaction(serverWrites, true);
        open = { t0: performance.now(), upTo: applied, writers };
      }
      writes.apply(op);
      if (!serverWaiting()) continue;
      lastYield = performance.now();
      if (!commit()) {
        // The commit failed with some of this message's ops: it fails with them.
        parentPort?.postMessage({
          upTo: msg.seq,
          error: "a commit of this scan failed",
        } satisfies ScanWriterReply);
        return;
      }
    }
    applied = msg.seq;
    if (!open) {
      // Its last op was committed at once (or it had none): nothing of it is left to commit.
      parentPort?.postMessage({ upTo: msg.seq } satisfies ScanWriterReply);
      return;
    }
    open.upTo = msg.seq;
  } catch (err) {
    open = undefined;
    return fail(msg.seq, writers, err);
  }
  const now = performance.now();
  const budget = now - lastYield < ACTIVE_MS ? Math.min(msg.budgetMs, ACTIVE_BUDGET_MS) : msg.budgetMs;
  if (msg.sync || now - open.t0 >= budget) commit();
  else idleTimer = setTimeout(commit, IDLE_COMMIT_MS);
});
