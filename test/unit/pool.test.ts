import { describe, expect, it } from "vitest";
import { mapLimit, runWorkers } from "../../src/platform/pool.ts";

describe("pool", () => {
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
  });
});
