import Database from "better-sqlite3";
import { afterAll, describe, expect, it } from "vitest";
import { foldedGlob, foldedGlobs } from "../../src/domain/search/fold.ts";
import { containsCondition } from "../../src/domain/search/search.contains.ts";

/** containsCondition and foldedGlobs, run by SQLite itself. */
describe("containsCondition", () => {
  const c = new Database(":memory:");
  afterAll(() => c.close());

  it("finds a term's accent and case variants on row text as the index does", () => {
    const has = (text: string, term: string) => {
      const q = containsCondition("t", term);
      return (
        (c.prepare(`SELECT (${q.sql}) AS ok FROM (SELECT ? AS t)`).get(...q.params, text) as { ok: number })
          .ok === 1
      );
    };
    expect(has("/Photos/Hólidáy 2008", "holiday")).toBe(true);
    expect(has("/Photos/HOLIDAY", "hólidáy")).toBe(true);
    expect(has("/Movies/Amélie", "AMELIE")).toBe(true);
    expect(has("/Music/Zoë", "zoe")).toBe(true);
    expect(has("/Music/Björk", "bjork")).toBe(true);
    expect(has("/Music/Bjork", "björk")).toBe(true);
    expect(has("/Photos/東京 夜景", "東京")).toBe(true);
    expect(has("/Docs/a*b?c[d]", "*b?c[")).toBe(true);
    expect(has("/Docs/axbyc", "*b?c[")).toBe(false);
    expect(has("/Photos/Holidays", "holidax")).toBe(false);
    expect(has("/Photos/Hol–iday", "holiday")).toBe(false);
    // Split on the first character: text matches one of the patterns exactly when it matches foldedGlob's.
    const glob = (text: string, pattern: string) =>
      (c.prepare("SELECT ? GLOB ? AS ok").get(text, pattern) as { ok: number }).ok === 1;
    for (const term of ["amélie", "Zoë", "ελλάδα", ".flac"]) {
      const whole = foldedGlob(term);
      const split = foldedGlobs(term);
      if (!whole) {
        expect(split).toBeUndefined();
        continue;
      }
      const parts = [...split!.ascii, ...(split!.nonAscii ? [split!.nonAscii] : [])];
      for (const text of [
        "x Amélie",
        "AMELIE",
        "Àmelie y",
        "amelia",
        "ZOË",
        "zoe",
        "Ελλάδα",
        "ΕΛΛΑΔΑ",
        "a.flac",
      ])
        expect(
          parts.some((p) => glob(text, p)),
          `${term} in ${text}`,
        ).toBe(glob(text, whole));
    }
    expect(foldedGlobs("2019")).toBeUndefined();
  });
});
