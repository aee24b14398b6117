import { describe, expect, it } from "vitest";
import { createJobQueue } from "../../src/platform/job-queue.ts";

const tick = () => new Promise((r) => setImmediate(r));

describe("job queue", () => {
  it("runs at most `concurrency` jobs at once and starts waiting ones in order", async () => {
    const q = createJobQueue({ concurrency: 2 });
    let running = 0;
    let peak = 0;
    const order: number[] = [];
    const gates: (() => void)[] = [];
    const jobs = [0, 1, 2, 3, 4].map((i) =>
      q.run(`k${i}`, async () => {
        running++;
        peak = Math.max(peak, running);
        order.push(i);
        await new Promise<void>((r) => gates.push(r));
        running--;
        return i;
      }),
    );
    await tick();
    expect(order).toEqual([0, 1]);
    while (gates.length) {
      gates.shift()!();
      await tick();
      await tick();
    }
    expect(await Promise.all(jobs)).toEqual([0, 1, 2, 3, 4]);
    expect(peak).toBe(2);
    expect(order).toEqual([0, 1, 2, 3, 4]);
  });

  it("starts a job asked for twice while in flight only once", async () => {
    const q = createJobQueue({ concurrency: 1 });
    let starts = 0;
    const job = async () => {
      starts++;
      await tick();
      return "done";
    };
    const [a, b] = await Promise.all([q.run("same", job), q.run("same", job)]);
    expect([a, b, starts]).toEqual(["done", "done", 1]);
    await q.run("same", job);
    expect(starts).toBe(2);
    expect(q.size).toBe(0);
  });

  it("remembers a failure for failureTtlMs, then tries again", async () => {
    const q = createJobQueue({ concurrency: 1, failureTtlMs: 50 });
    let starts = 0;
    const failing = async () => {
      starts++;
      throw new Error("unreadable");
    };
    await expect(q.run("bad", failing)).rejects.toThrow("unreadable");
    await expect(q.run("bad", failing)).rejects.toThrow("unreadable");
    expect(starts).toBe(1);
    await new Promise((r) => setTimeout(r, 60));
    await expect(q.run("bad", failing)).rejects.toThrow("unreadable");
    expect(starts).toBe(2);
  });
});
