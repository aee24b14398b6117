import { afterAll, describe, expect, it } from "vitest";
import { keptUntilChange } from "../../src/domain/search/search.repo.ts";
import { newId } from "../../src/platform/ids.ts";
import { closeTempDb, openTempDb } from "../helpers/temp-db.ts";

/** The search repository's values kept until the database changes (search.repo.ts keptUntilChange). */
describe("values kept until the database changes", () => {
  const { dir, db } = openTempDb("attic-kept-", [newId()]);
  afterAll(() => closeTempDb(dir, db));

  /** A kept lookup whose values are arrays of `n` items, counting how often each key is computed. */
  const lookup = (most?: number) => {
    const computed = new Map<string, number>();
    const kept = keptUntilChange<number[]>(
      db.$client,
      most === undefined ? undefined : { weight: (v) => v.length, most },
    );
    const get = (key: string, n: number) =>
      kept(key, () => {
        computed.set(key, (computed.get(key) ?? 0) + 1);
        return Array.from({ length: n }, (_, i) => i);
      });
    return { get, computed: (key: string) => computed.get(key) ?? 0 };
  };

  it("computes a key once until the database changes", () => {
    const { get, computed } = lookup();
    get("a", 3);
    get("a", 3);
    expect(computed("a")).toBe(1);
    db.$client.prepare("UPDATE organizations SET name = name || 'x'").run();
    get("a", 3);
    expect(computed("a")).toBe(2);
  });

  it("keeps no more than its bound's summed weight, and never a value heavier than it", () => {
    const { get, computed } = lookup(10);
    get("six", 6);
    get("six", 6);
    expect(computed("six")).toBe(1);
    // Four more fit (10): both kept.
    get("four", 4);
    get("six", 6);
    get("four", 4);
    expect([computed("six"), computed("four")]).toEqual([1, 1]);
    // One more does not: what was kept is dropped for it.
    get("one", 1);
    get("six", 6);
    expect(computed("six")).toBe(2);
    // Heavier than the bound: computed every time, nothing dropped for it.
    get("big", 11);
    get("big", 11);
    expect(computed("big")).toBe(2);
    get("six", 6);
    expect(computed("six")).toBe(2);
  });
});
