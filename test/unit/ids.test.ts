import { describe, expect, it } from "vitest";
import { isId, newId } from "../../src/platform/ids.ts";

describe("newId", () => {
  it("gives UUIDv7s, all different across many refills of its random pool, in time order", async () => {
    const ids = Array.from({ length: 5000 }, () => newId());
    expect(new Set(ids).size).toBe(5000);
    for (const id of ids.slice(0, 300)) {
      expect(isId(id)).toBe(true);
      expect(id[14]).toBe("7"); // version
      expect("89ab").toContain(id[19]); // RFC 9562 variant
    }
    // The random part differs between consecutive ids (bytes are never reused).
    const tails = new Set(ids.map((id) => id.slice(19)));
    expect(tails.size).toBe(5000);
    const before = newId();
    await new Promise((r) => setTimeout(r, 3));
    expect(newId().slice(0, 13) > before.slice(0, 13)).toBe(true);
  });
});
