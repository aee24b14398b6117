import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { WalCheckpointer } from "../../src/db/checkpointer.ts";
import { type Db, openDb } from "../../src/db/client.ts";

/**
 * The WAL checkpointer's thread (src/db/checkpointer.ts) on a real database
 * file: it copies the log into the database beside the server's own
 * connection, which keeps writing meanwhile.
 */
describe("WAL checkpoints on a thread of their own", () => {
  let dir: string;
  let file: string;
  let db: Db;
  let aside: WalCheckpointer;

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), "attic-ckpt-"));
    file = join(dir, "attic.db");
    db = openDb({ file });
    // No automatic checkpoints: what reaches the database file is the thread's doing.
    db.$client.pragma("wal_autocheckpoint = 0");
    db.$client.exec("CREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT NOT NULL); CREATE INDEX t_v ON t(v)");
    aside = new WalCheckpointer(file);
  });
  afterEach(async () => {
    await aside.stop();
    db.$client.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const insert = (n: number, from = 0) =>
    db.$client.transaction(() => {
      const stmt = db.$client.prepare("INSERT INTO t (id, v) VALUES (?, ?)");
      for (let i = from; i < from + n; i++) stmt.run(i, `${(i * 7919) % 10007}-${"x".repeat(100)}`);
    })();
  /** One write on the server's connection, then the log's length as the thread's next checkpoint finds it. */
  const framesAfterOwnWrite = () => {
    insert(1, 1_000_000 + Math.floor(Math.random() * 1e6));
    return aside.checkpoint();
  };

  it("copies the whole log while the server's connection keeps writing, and the log starts over after", async () => {
    insert(5000);
    const first = await aside.checkpoint();
    expect(first.log).toBeGreaterThan(100);
    expect(first.checkpointed).toBe(first.log);
    expect(aside.completed).toBe(1);

    // Writes on the server's connection while a checkpoint runs: neither waits for nor breaks the other.
    insert(2000, 5000);
    const running = aside.checkpoint();
    expect(aside.running).toBe(true);
    expect(aside.checkpoint()).toBe(running); // joined, not a second one
    insert(2000, 7000);
    const second = await running;
    expect(second.checkpointed).toBeLessThanOrEqual(second.log);
    expect(aside.running).toBe(false);
    const last = await aside.checkpoint();
    expect(last.checkpointed).toBe(last.log);

    // Every frame is in the database: the next write starts the log over, so it holds a few frames only.
    const after = await framesAfterOwnWrite();
    expect(after.log).toBeLessThan(20);
    expect(db.$client.prepare("SELECT count(*) AS n FROM t").get()).toEqual({ n: 9001 });
    expect(db.$client.pragma("integrity_check", { simple: true })).toBe("ok");
  });

  it("ends its thread on stop and starts another on the next checkpoint", async () => {
    insert(1000);
    await aside.checkpoint();
    await aside.stop();
    expect(aside.running).toBe(false);
    insert(1000, 1000);
    const again = await aside.checkpoint();
    expect(again.log).toBeGreaterThan(0);
    expect(again.checkpointed).toBe(again.log);
    expect(aside.completed).toBe(2);
    expect(aside.failed).toBeUndefined();
  });

  it("fails, and says so from then on, when its database cannot be opened", async () => {
    const missing = new WalCheckpointer(join(dir, "missing.db"));
    await expect(missing.checkpoint()).rejects.toThrow();
    expect(missing.failed).toBeInstanceOf(Error);
    await expect(missing.checkpoint()).rejects.toBe(missing.failed);
    await missing.stop();
  });
});
