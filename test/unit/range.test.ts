import { describe, expect, it } from "vitest";
import { ifRangeMatches, parseRange } from "../../src/domain/files/range.ts";

describe("parseRange", () => {
  const size = 1000;

  it("serves the whole file without a usable Range", () => {
    for (const h of [
      undefined,
      "",
      "bytes=",
      "bytes=-",
      "items=0-5",
      "bytes=abc",
      "bytes=5-2",
      "bytes=0-1,5-9",
    ]) {
      expect(parseRange(h, size), String(h)).toEqual({ kind: "full" });
    }
  });

  it("parses closed, open and suffix ranges and clamps the end", () => {
    expect(parseRange("bytes=0-99", size)).toEqual({ kind: "partial", start: 0, end: 99 });
    expect(parseRange("bytes=100-", size)).toEqual({ kind: "partial", start: 100, end: 999 });
    expect(parseRange("bytes=-500", size)).toEqual({ kind: "partial", start: 500, end: 999 });
    expect(parseRange("bytes=-5000", size)).toEqual({ kind: "partial", start: 0, end: 999 });
    expect(parseRange("bytes=990-5000", size)).toEqual({ kind: "partial", start: 990, end: 999 });
    expect(parseRange("BYTES=999-999", size)).toEqual({ kind: "partial", start: 999, end: 999 });
    // An end too long for a safe integer still lies past the last byte: clamped, not the whole file.
    expect(parseRange("bytes=10-99999999999999999999", size)).toEqual({
      kind: "partial",
      start: 10,
      end: 999,
    });
  });

  it("answers unsatisfiable ranges", () => {
    expect(parseRange("bytes=1000-", size)).toEqual({ kind: "unsatisfiable" });
    expect(parseRange("bytes=5000-6000", size)).toEqual({ kind: "unsatisfiable" });
    expect(parseRange("bytes=-0", size)).toEqual({ kind: "unsatisfiable" });
    expect(parseRange("bytes=0-", 0)).toEqual({ kind: "unsatisfiable" });
  });
});

describe("ifRangeMatches", () => {
  const etag = '"abc"';
  const modified = new Date("2026-01-02T03:04:05.678Z");

  it("applies the range when absent or matching", () => {
    expect(ifRangeMatches(undefined, etag, modified)).toBe(true);
    expect(ifRangeMatches('"abc"', etag, modified)).toBe(true);
    expect(ifRangeMatches(modified.toUTCString(), etag, modified)).toBe(true);
  });

  it("ignores the range when the validator changed or is weak", () => {
    expect(ifRangeMatches('"other"', etag, modified)).toBe(false);
    expect(ifRangeMatches('W/"abc"', etag, modified)).toBe(false);
    expect(ifRangeMatches(new Date("2025-01-01").toUTCString(), etag, modified)).toBe(false);
    expect(ifRangeMatches("garbage", etag, modified)).toBe(false);
  });
});
