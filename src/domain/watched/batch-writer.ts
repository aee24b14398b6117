import { setImmediate as yieldToLoop } from "node:timers/promises";
import type { WriteOp } from "./scan-writes.ts";
import type { WatchedRepo } from "./watched.repo.ts";

/** Most rows queued before they are written; between transactions the event loop runs. */
export const BATCH_SIZE = 4000;
/** Entries of one directory between two chances for the writer to write (and the event loop to run). */
export const FLUSH_EVERY = 512;
/**
 * Longest a write transaction may hold the event loop, commit included.
 * Shorter while requests are arriving (a request waits for the transaction
 * in progress), longer when the server is idle (bigger transactions cost
 * less per row). The commit is most of a transaction's cost on a big index
 * (each row dirties a page of the name index, which the commit writes to
 * the WAL, and every few commits a checkpoint copies them), so the writer
 * sizes each transaction from what the previous ones cost per row, not
 * from the time spent before commit alone. With checkpoints off the loop
 * (src/db/checkpointer.ts) the budgets rose from 60/20 ms: a request waits
 * for one transaction, not a transaction plus a checkpoint (GET /health
 * p99 during a 1M-file first scan: docs/performance.md).
 */
const IDLE_BUDGET_MS = 120;
const BUSY_BUDGET_MS = 30;
/**
 * A transaction on the scan writer's thread: longer, whatever the server is
 * doing, since it holds nobody back there (readers never wait for a writer,
 * and the thread commits at once when the server's connection writes:
 * db/write-signal.ts). Fewer commits write each dirtied page of the name
 * index to the WAL fewer times: a 1M-file first scan on both CPUs took
 * 69.9 / 83.5 s against 97.0 / 96.8 s with the 30 ms budget, `/health` p99
 * 12.0 / 10.8 against 23.0 / 21.3 ms (build/attic, runs interleaved). The
 * walk's lead (THREAD_AHEAD) bounds it too, and the thread shortens it
 * for a while after the server wrote (scan-writer-worker.ts ACTIVE_MS).
 */
const THREAD_BUDGET_MS = 400;
/** Ops per message to the thread: sent soon after they are made, they die young in V8's heap. */
const THREAD_CHUNK = 256;
/**
 * Ops sent to the thread and not yet committed past which the walk waits:
 * more than a transaction's worth (the thread never idles for want of
 * ops), few enough that its queue of messages stays a few MiB.
 */
const THREAD_AHEAD = 16_384;
/** First guess of a row's cost (ms) before any transaction was timed; the per-row average then adapts. */
const FIRST_ROW_COST_MS = 0.1;
/**
 * Without the checkpointer's thread: WAL pages a checkpoint of the writer's
 * own should copy: fewer checkpoints cost less (two fsyncs each, and a page
 * dirtied by several transactions is copied once), but a checkpoint holds
 * the loop for about 2.5 ms per 100 pages here.
 */
const CHECKPOINT_PAGES = 800;
/**
 * With the checkpointer's thread (src/db/checkpointer.ts): transactions
 * between the end of one checkpoint and the start of the next. Checkpoints
 * then cost the loop nothing, but each still copies and syncs; spaced out,
 * a page dirtied by several transactions is copied once.
 */
const TRANSACTIONS_PER_CHECKPOINT = 4;
/**
 * WAL frames past which the writer waits for a checkpoint with no write of
 * its own beside it. A checkpoint beside the writes never catches up with
 * them, and SQLite starts the log over only when every frame is in the
 * database as a write begins; without the pause the log grows for the
 * whole scan (gigabytes at a million files).
 */
const WAL_RESTART_FRAMES = 16_384;
/** What the writer counts. */
export interface WriteStats {
  written: number;
}

/**
 * Queues row writes and applies them in transactions sized to last about
 * the budget (commit included). A writer that fills a whole transaction
 * sends its ops to the scan writer's thread (scan-writer.ts) from then on,
 * THREAD_CHUNK at a time, and the walk goes on while they are written (it
 * waits only when THREAD_AHEAD are not yet committed); small syncs (a live
 * change in one directory) and a process without the thread write on the
 * server's connection, yielding to the event loop between transactions: a
 * scan of a million files never holds requests back for long either way.
 */
export class BatchWriter {
  private ops: WriteOp[] = [];
  private readonly repo: WatchedRepo;
  private readonly stats: WriteStats;
  private readonly busy: () => boolean;
  /** Moving average of a row's cost in a transaction, commit included (ms). */
  private rowCost = FIRST_ROW_COST_MS;
  private sinceCheckpoint = 0;
  private checkpointEvery = 1;
  /** The checkpoint running beside the writes, if any. */
  private aside: Promise<void> | undefined;
  /** Set when the WAL grew past WAL_RESTART_FRAMES: the next transaction waits for a checkpoint of its own. */
  private restartWal = false;
  /** Gives the connection's settings back (watched.repo.ts holdScanSettings: held from construction until close). */
  private release: (() => void) | undefined;
  /** The flush in progress (on the server's connection). */
  private writing: Promise<void> | undefined;
  /** Ops go to the scan writer's thread (from the first full transaction's worth on). */
  private threaded = false;
  /** Messages sent to the thread and not yet committed. */
  private readonly inFlight = new Set<Promise<void>>();
  /** Ops sent to the thread and not yet committed. */
  private ahead = 0;
  /** This writer's number on the thread (ScanWriterThread.newWriter). */
  private writerId: number | undefined;
  /** The thread's commits seen so far (a checkpoint beside the writes follows every few). */
  private commitsSeen = 0;
  /** What a transaction on the thread failed with: thrown at the walk's next call. */
  private failure: unknown;
  constructor(repo: WatchedRepo, stats: WriteStats, busy: () => boolean = () => false) {
    this.repo = repo;
    this.stats = stats;
    this.busy = busy;
    this.release = repo.holdScanSettings();
  }
  push(op: WriteOp): void {
    this.ops.push(op);
  }
  /**
   * Writes what is queued once there is enough: on the thread, a message's
   * worth (waiting while the thread is far behind); on the server's
   * connection, a transaction's worth. Rows written soon after they are
   * queued die young in V8's heap; a queue of 4000 held over many turns of
   * the loop was promoted to the old generation and grew the heap by ~90
   * MiB during a 200k-file scan.
   */
  async maybeFlush(): Promise<void> {
    this.throwFailure();
    if (!this.threaded) {
      if (this.ops.length < Math.min(BATCH_SIZE, this.rowsPerTransaction())) return;
      const thread = this.repo.scanThread;
      this.threaded = thread !== undefined && !thread.failed;
      if (!this.threaded) return this.drain(false);
    }
    if (this.ops.length >= THREAD_CHUNK) await this.send(false);
  }
  /**
   * Writes everything queued, then lets the checkpoint beside the writes
   * finish and copies what is left, so that the next commit on the
   * connection, with the usual automatic threshold back, carries none.
   */
  async flush(): Promise<void> {
    this.throwFailure();
    if (this.threaded) await this.send(true);
    else await this.drain(true);
    await this.checkpointAsideAlone();
  }
  private throwFailure(): void {
    if (this.failure !== undefined) throw this.failure;
  }
  /**
   * Sends the queue to the thread; with `sync`, commits and waits for
   * everything sent. Waits while the thread is more than THREAD_AHEAD ops
   * behind, and before a WAL restart (a checkpoint with no write beside it).
   */
  private async send(sync: boolean): Promise<void> {
    const thread = this.repo.scanThread!;
    if (this.restartWal) {
      this.restartWal = false;
      this.sendChunk(thread, true);
      await Promise.all(this.inFlight);
      this.throwFailure();
      await this.checkpointAsideAlone();
    }
    this.sendChunk(thread, sync);
    if (sync) await Promise.all(this.inFlight);
    while (this.ahead > THREAD_AHEAD && this.inFlight.size > 0) await Promise.race(this.inFlight);
    this.throwFailure();
  }
  private sendChunk(thread: NonNullable<WatchedRepo["scanThread"]>, sync: boolean): void {
    if (this.ops.length === 0 && !sync) return;
    // Only the count is kept: the ops themselves are the thread's once sent (kept here until their
    // commit, 16k of them at a time were promoted to V8's old generation: +50 MiB of heap).
    const n = this.ops.length;
    this.writerId ??= thread.newWriter();
    const sent = thread.send(this.ops, THREAD_BUDGET_MS, sync, this.writerId).then(
      () => {
        this.ahead -= n;
        this.stats.written += n;
        if (thread.completed !== this.commitsSeen) {
          this.commitsSeen = thread.completed;
          this.checkpointAside();
        }
      },
      (err: unknown) => {
        // The transaction rolled back; the walk stops at its next call, and the thread refuses this
        // writer's later ops (the directories' mtimes were not stored: the next scan redoes them).
        this.ahead -= n;
        this.failure ??= err;
      },
    );
    this.ops = [];
    this.ahead += n;
    this.inFlight.add(sent);
    void sent.finally(() => this.inFlight.delete(sent));
  }
  /** Resolves once every batch sent to the thread is committed or rolled back (never rejects). */
  async settled(): Promise<void> {
    await Promise.allSettled([...this.inFlight]);
  }
  /** Ends the writer's hold on the connection's settings (after the last flush, or on failure). */
  close(): void {
    // Queued writes of a walk that ended early (aborted, failed) are dropped, as they always were.
    this.ops = [];
    this.release?.();
    this.release = undefined;
  }
  /** How long a transaction may last now (ms). */
  private budget(): number {
    return this.busy() ? BUSY_BUDGET_MS : IDLE_BUDGET_MS;
  }
  private rowsPerTransaction(): number {
    return Math.max(16, Math.floor(this.budget() / this.rowCost));
  }
  /**
   * One drain runs at a time: two side by side would each take a
   * transaction per turn of the event loop, doubling what a request waits
   * for; a caller arriving meanwhile waits for it (which also keeps the walk
   * from running far ahead of the writes).
   */
  private async drain(all: boolean): Promise<void> {
    while (this.writing) await this.writing;
    this.writing = this.write(all).finally(() => {
      this.writing = undefined;
    });
    await this.writing;
  }
  private async write(all: boolean): Promise<void> {
    while (this.ops.length > 0 && (all || this.ops.length >= this.rowsPerTransaction())) {
      // Each transaction on a turn of the loop of its own, never right after the caller's work on the
      // same turn: a request then waits for one hold at most, not a walk step plus a transaction.
      await yieldToLoop();
      if (this.restartWal) {
        this.restartWal = false;
        await this.checkpointAsideAlone();
      }
      const batch = this.ops.splice(0, this.rowsPerTransaction());
      const { written, ms } = this.writeHere(batch);
      if (written < batch.length) this.ops = batch.slice(written).concat(this.ops);
      this.stats.written += written;
      this.rowCost = this.rowCost * 0.7 + (ms / written) * 0.3;
      if (this.checkpointAside()) {
        // The walk's next step on a turn of its own too, not on top of this commit.
        await yieldToLoop();
        continue;
      }
      // Without the thread, checkpoints run on turns of their own, not on top of a commit, every few
      // transactions: as many as wrote about CHECKPOINT_PAGES pages of WAL, going by the last checkpoint.
      if (++this.sinceCheckpoint >= this.checkpointEvery) {
        await yieldToLoop();
        const pages = this.repo.checkpoint();
        const perTransaction = pages / this.sinceCheckpoint;
        this.checkpointEvery = Math.max(
          1,
          Math.min(8, Math.floor(CHECKPOINT_PAGES / Math.max(perTransaction, 1))),
        );
        this.sinceCheckpoint = 0;
      }
    }
  }
  /**
   * One transaction on the server's connection. The work itself stops at
   * half the budget whatever the estimate said: the commit takes the rest.
   */
  private writeHere(batch: WriteOp[]): { written: number; ms: number } {
    const t0 = performance.now();
    const budget = this.budget();
    let i = 0;
    this.repo.bulkTransaction(() => {
      while (i < batch.length && (i % 16 !== 15 || performance.now() - t0 < budget / 2))
        this.repo.apply(batch[i++]!);
    });
    return { written: i, ms: performance.now() - t0 };
  }
  /**
   * Starts a checkpoint on the checkpointer's thread every few
   * transactions, one at a time; false when there is no such thread.
   */
  private checkpointAside(): boolean {
    const aside = this.repo.checkpointer;
    if (!aside || aside.failed) return false;
    if (aside.running) return true;
    if (++this.sinceCheckpoint < TRANSACTIONS_PER_CHECKPOINT) return true;
    this.sinceCheckpoint = 0;
    this.aside = aside.checkpoint().then(
      (r) => {
        if (r.log >= WAL_RESTART_FRAMES) this.restartWal = true;
      },
      // The thread is gone (`failed` is set from now on): checkpoints come back inline.
      () => undefined,
    );
    return true;
  }
  /** Waits for the checkpoint running beside the writes, then runs one with nothing written beside it. */
  private async checkpointAsideAlone(): Promise<void> {
    await this.aside;
    const aside = this.repo.checkpointer;
    if (aside && !aside.failed) await aside.checkpoint().catch(() => undefined);
  }
}
