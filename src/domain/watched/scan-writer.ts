import type { Worker } from "node:worker_threads";
import { startDbThread } from "../../db/db-thread.ts";
import { markTransaction } from "../../db/write-signal.ts";
import type { ScanWriterData, ScanWriterMessage, ScanWriterReply } from "./scan-writer-worker.ts";
import type { WriteOp } from "./scan-writes.ts";

/** The worker's bundle inside the single executable (scripts/build.ts embeds it). */
export const SCAN_WRITER_ASSET = "build/scan-writer-worker.cjs";

/**
 * Applies scans' row writes on a thread and connection of their own
 * (scan-writer-worker.ts). The server's event loop then only walks the
 * host tree and answers requests while a scan of a million files writes;
 * SQLite lets that writer and the server's readers work at once on a WAL
 * database, and orders the writes of both connections by its write lock
 * (busy_timeout).
 *
 * Ops are applied in the order they are sent; the thread groups them into
 * transactions of about `budgetMs` and acknowledges each message when the
 * transaction holding it commits. The thread starts on the first message
 * and ends on stop() (when scans end): an idle server keeps no extra
 * isolate or connection.
 */
export class ScanWriterThread {
  private readonly data: Omit<ScanWriterData, "addonPath">;
  private thread: { worker: Worker; waiting: Waiter[] } | undefined;
  private seq = 0;
  private writers = 0;
  /** Transactions the thread committed. */
  completed = 0;
  /** Set once the thread failed to start or died: scans write on the server's connection. */
  failed: Error | undefined;

  constructor(data: Omit<ScanWriterData, "addonPath">) {
    this.data = data;
  }

  /** True while the thread runs. */
  get running(): boolean {
    return this.thread !== undefined;
  }

  /**
   * Applies `ops` on the thread, in its open transaction (or a new one of
   * about `budgetMs`; `sync` commits right after them). Resolves when they
   * are committed, rejects when their transaction failed.
   */
  send(ops: WriteOp[], budgetMs: number, sync = false, writer?: number): Promise<void> {
    if (this.failed) return Promise.reject(this.failed);
    return new Promise<void>((resolve, reject) => {
      try {
        const thread = this.start();
        const seq = ++this.seq;
        thread.worker.postMessage({ seq, ops, budgetMs, sync, writer } satisfies ScanWriterMessage);
        thread.waiting.push({ seq, resolve, reject });
      } catch (err) {
        this.failed ??= err instanceof Error ? err : new Error(String(err));
        reject(this.failed);
      }
    });
  }

  /** A number for a writer's messages: once one of its transactions failed, its later ops are refused. */
  newWriter(): number {
    return ++this.writers;
  }

  /** Sends one op without waiting for it (progress reports) when the thread runs; false otherwise. */
  post(op: WriteOp): boolean {
    if (!this.thread || this.failed) return false;
    this.send([op], 0).catch(() => undefined);
    return true;
  }

  /** Commits what was sent, then ends the thread (a later message starts another). */
  async stop(): Promise<void> {
    const thread = this.thread;
    if (!thread) return;
    this.thread = undefined;
    const exited = new Promise((resolve) => thread.worker.once("exit", resolve));
    thread.worker.postMessage("close");
    await exited;
  }

  private start(): { worker: Worker; waiting: Waiter[] } {
    if (this.thread) return this.thread;
    const worker = startDbThread(
      SCAN_WRITER_ASSET,
      new URL("./scan-writer-worker.ts", import.meta.url),
      this.data,
    );
    const thread = { worker, waiting: [] as Waiter[] };
    worker.on("message", (reply: ScanWriterReply) => {
      if ("only" in reply) {
        const i = thread.waiting.findIndex((w) => w.seq === reply.only);
        if (i >= 0) thread.waiting.splice(i, 1)[0]!.reject(new Error(reply.error));
        return;
      }
      if (!("error" in reply)) this.completed++;
      while (thread.waiting.length > 0 && thread.waiting[0]!.seq <= reply.upTo) {
        const w = thread.waiting.shift()!;
        if ("error" in reply) w.reject(new Error(reply.error));
        else w.resolve();
      }
    });
    const lost = (err: Error) => {
      // A thread that died inside a transaction must not leave the server's writes waiting for its end.
      markTransaction(this.data.serverWrites, false);
      if (this.thread === thread) {
        this.failed ??= err;
        this.thread = undefined;
      }
      for (const w of thread.waiting.splice(0)) w.reject(err);
    };
    worker.on("error", lost);
    worker.on("exit", (code) => lost(new Error(`the scan writer's thread exited (code ${code})`)));
    this.thread = thread;
    return thread;
  }
}

interface Waiter {
  seq: number;
  resolve: () => void;
  reject: (err: Error) => void;
}
