import { describe, expect, it } from "vitest";
import { createKeyedLimit, createLimit, mapLimit, runWorkers } from "../../src/platform/pool.ts";

describe("pool", () => {
  it("limits jobs to `concurrency` at once, starting waiters in order, a failure freeing its slot", async () => {
    const limit = createLimit(2);
    let inFlight = 0;
    let most = 0;
    const started: number[] = [];
    const job = (n: number) => async () => {
      started.push(n);
      inFlight++;
      most = Math.max(most, inFlight);
      await new Promise((r) => setTimeout(r, 5));
      inFlight--;
      if (n === 1) throw new Error("one");
      return n;
    };
    const results = await Promise.allSettled([1, 2, 3, 4, 5].map((n) => limit(job(n))));
    expect(results.map((r) => (r.status === "fulfilled" ? r.value : "failed"))).toEqual([
      "failed",
      2,
      3,
      4,
      5,
    ]);
    expect(started).toEqual([1, 2, 3, 4, 5]);
    expect(most).toBe(2);
    // A single slot taken by a failing job is given back: the next job still runs.
    const one = createLimit(1);
    await expect(one(() => Promise.reject(new Error("x")))).rejects.toThrow("x");
    await expect(one(async () => "next")).resolves.toBe("next");
  });

  it("limits each key on its own: one key's queue never holds up another key", async () => {
    const limit = createKeyedLimit(1);
    const log: string[] = [];
    let release!: () => void;
    const held = new Promise<void>((r) => {
      release = r;
    });
    const a1 = limit("a", async () => {
      log.push("a1 start");
      await held;
      log.push("a1 end");
    });
    const a2 = limit("a", async () => {
      log.push("a2 start");
    });
    // b runs to its end while a's first job still holds a's only slot.
    await limit("b", async () => {
      log.push("b");
    });
    expect(log).toEqual(["a1 start", "b"]);
    release();
    await Promise.all([a1, a2]);
    expect(log).toEqual(["a1 start", "b", "a1 end", "a2 start"]);
    // A failure frees the key's slot.
    await expect(limit("a", () => Promise.reject(new Error("x")))).rejects.toThrow("x");
    await expect(limit("a", async () => "next")).resolves.toBe("next");
  });

  it("maps in order with at most `limit` calls in flight", async () => {
    let inFlight = 0;
    let most = 0;
    const out = await mapLimit([5, 1, 4, 2, 3, 0], 2, async (n) => {
      inFlight++;
      most = Math.max(most, inFlight);
      await new Promise((r) => setTimeout(r, n));
      inFlight--;
      return n * 10;
    });
    expect(out).toEqual([50, 10, 40, 20, 30, 0]);
    expect(most).toBe(2);
    expect(await mapLimit([], 4, async (n: number) => n)).toEqual([]);
  });

  it("runs the workers at once and waits for all, surfacing a failure", async () => {
    // All three are running before any has finished (run one after another, the most would be 1).
    let inFlight = 0;
    let most = 0;
    let finished = 0;
    await runWorkers(3, async () => {
      inFlight++;
      most = Math.max(most, inFlight);
      await new Promise((r) => setTimeout(r, 5));
      inFlight--;
      finished++;
    });
    expect(most).toBe(3);
    expect(finished).toBe(3);
    await expect(
      runWorkers(2, async () => {
        throw new Error("boom");
      }),
    ).rejects.toThrow("boom");
    // A failure surfaces only once the other workers have returned: nothing of the run goes on after it.
    let late = 0;
    let first = true;
    const failing = runWorkers(3, async () => {
      if (first) {
        first = false;
        throw new Error("early");
      }
      await new Promise((r) => setTimeout(r, 20));
      late++;
    });
    await expect(failing).rejects.toThrow("early");
    expect(late).toBe(2);
  });
});
