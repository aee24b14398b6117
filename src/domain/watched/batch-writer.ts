import { setImmediate as yieldToLoop } from "node:timers/promises";
import type { WatchedRepo } from "./watched.repo.ts";

/** Rows written per transaction; between batches the event loop runs. */
export const BATCH_SIZE = 4000;
/**
 * Longest a write transaction may hold the event loop; a batch that takes
 * longer commits early and goes on after a yield. Shorter while requests
 * are arriving (a request waits for the transaction in progress), longer
 * when the server is idle (bigger transactions cost less per row: at 200k
 * files, a budget of 12 ms made the scan ~35% slower and halved /health's
 * p99 during it).
 */
const BATCH_BUDGET_MS = 40;
const BUSY_BUDGET_MS = 10;
/** What the writer counts. */
export interface WriteStats {
  written: number;
}

/**
 * Queues row writes and applies them in transactions of up to BATCH_SIZE
 * rows, each cut short after BATCH_BUDGET_MS, yielding to the event loop
 * between them: a scan of 200k files never holds requests back for long.
 */
export class BatchWriter {
  private ops: (() => void)[] = [];
  private readonly repo: WatchedRepo;
  private readonly stats: WriteStats;
  private readonly busy: () => boolean;
  constructor(repo: WatchedRepo, stats: WriteStats, busy: () => boolean = () => false) {
    this.repo = repo;
    this.stats = stats;
    this.busy = busy;
  }
  push(op: () => void): void {
    this.ops.push(op);
  }
  async maybeFlush(): Promise<void> {
    if (this.ops.length >= BATCH_SIZE) await this.flush();
  }
  async flush(): Promise<void> {
    if (this.ops.length === 0) return;
    const ops = this.ops;
    this.ops = [];
    for (let i = 0; i < ops.length; ) {
      const t0 = performance.now();
      const budget = this.busy() ? BUSY_BUDGET_MS : BATCH_BUDGET_MS;
      this.repo.bulkTransaction(() => {
        while (i < ops.length && (i % 32 !== 31 || performance.now() - t0 < budget))
          (ops[i++] as () => void)();
      });
      await yieldToLoop();
    }
    this.stats.written += ops.length;
  }
}
