import type { Worker } from "node:worker_threads";
import type { CheckpointReply } from "./checkpoint-worker.ts";
import { startDbThread } from "./db-thread.ts";

/** The worker's bundle inside the single executable (scripts/build.ts embeds it). */
export const CHECKPOINT_WORKER_ASSET = "build/checkpoint-worker.cjs";

/** What one checkpoint did: WAL frames in the log and how many of them are now in the database. */
export interface CheckpointResult {
  log: number;
  checkpointed: number;
}

/**
 * Copies a database's WAL into the database file on a thread of its own
 * (src/db/checkpoint-worker.ts), one checkpoint at a time.
 *
 * A checkpoint on the server's own connection holds the event loop for
 * the copy and two fsyncs (~2.5 ms per 100 pages here); a scan of a
 * million files spent 40 s of its 103 in them. On another connection, a
 * PASSIVE checkpoint runs beside the writer: SQLite lets one checkpointer,
 * readers and one writer work at once on a WAL database.
 *
 * The thread starts on the first checkpoint and ends on stop() (a scan's
 * end): an idle server keeps no second connection or isolate.
 */
export class WalCheckpointer {
  private readonly file: string;
  private worker: Worker | undefined;
  private inFlight: Promise<CheckpointResult> | undefined;
  private settle: ((r: CheckpointReply) => void) | undefined;
  /** Checkpoints the thread finished. */
  completed = 0;
  /** Set once the thread failed to start or died: callers checkpoint on their own connection. */
  failed: Error | undefined;

  constructor(file: string) {
    this.file = file;
  }

  /** True while a checkpoint runs. */
  get running(): boolean {
    return this.inFlight !== undefined;
  }

  /** Starts a checkpoint, or joins the one running; rejects when the thread cannot do it. */
  checkpoint(): Promise<CheckpointResult> {
    if (this.failed) return Promise.reject(this.failed);
    this.inFlight ??= new Promise<CheckpointReply>((resolve) => {
      this.settle = resolve;
      try {
        this.start().postMessage("checkpoint");
      } catch (err) {
        this.failed = err instanceof Error ? err : new Error(String(err));
        resolve({ error: this.failed.message });
      }
    })
      .then((reply) => {
        if ("error" in reply) throw new Error(`WAL checkpoint failed: ${reply.error}`);
        this.completed++;
        return { log: reply.log, checkpointed: reply.checkpointed };
      })
      .finally(() => {
        this.inFlight = undefined;
      });
    return this.inFlight;
  }

  /** Waits for the checkpoint in progress, then ends the thread (started again on the next checkpoint). */
  async stop(): Promise<void> {
    await this.inFlight?.catch(() => undefined);
    const worker = this.worker;
    this.worker = undefined;
    if (!worker) return;
    const exited = new Promise((resolve) => worker.once("exit", resolve));
    worker.postMessage("close");
    await exited;
  }

  private start(): Worker {
    if (this.worker) return this.worker;
    // A lost thread fails the checkpoint waiting on it.
    const source = new URL("./checkpoint-worker.ts", import.meta.url);
    const worker = startDbThread(CHECKPOINT_WORKER_ASSET, source, { file: this.file });
    worker.on("message", (reply: CheckpointReply) => this.settle?.(reply));
    const lost = (err: Error) => {
      this.failed ??= err;
      this.worker = undefined;
      this.settle?.({ error: err.message });
    };
    worker.on("error", lost);
    worker.on("exit", (code) => {
      if (this.worker === worker) lost(new Error(`the checkpoint thread exited (code ${code})`));
    });
    this.worker = worker;
    return worker;
  }
}
