import { describe, expect, it } from "vitest";
import { childPath, MAX_NAME_BYTES, normalizeName } from "../../src/domain/files/names.ts";
import { AppError } from "../../src/errors.ts";

function rejects(name: unknown): AppError {
  try {
    normalizeName(name);
  } catch (err) {
    expect(err).toBeInstanceOf(AppError);
    expect((err as AppError).code).toBe("VALIDATION");
    return err as AppError;
  }
  throw new Error(`accepted ${JSON.stringify(name)}`);
}

describe("normalizeName", () => {
  it("accepts ordinary and unicode names", () => {
    expect(normalizeName("report.pdf")).toBe("report.pdf");
    expect(normalizeName("Фото 2024 🎉.jpg")).toBe("Фото 2024 🎉.jpg");
    expect(normalizeName(".hidden")).toBe(".hidden");
    expect(normalizeName("a.b.c")).toBe("a.b.c");
  });

  it("normalises to NFC so two spellings are one name", () => {
    const decomposed = "Cafe\u0301";
    const composed = "Caf\u00e9";
    expect(normalizeName(decomposed)).toBe(composed);
    expect(normalizeName(composed)).toBe(composed);
  });

  it("rejects empty, dot names, separators, traversal and control characters", () => {
    for (const bad of [
      "",
      ".",
      "..",
      "a/b",
      "/",
      "a\\b",
      "..secret",
      "x..y",
      "a\u0000b",
      "a\nb",
      "tab\there",
      "\u007f",
      "\u0085",
    ]) {
      rejects(bad);
    }
    rejects(undefined);
    rejects(42);
  });

  it("limits names to 255 UTF-8 bytes, not characters", () => {
    expect(normalizeName("a".repeat(MAX_NAME_BYTES))).toHaveLength(255);
    rejects("a".repeat(MAX_NAME_BYTES + 1));
    // 128 two-byte characters = 256 bytes.
    rejects("é".repeat(128));
    expect(normalizeName("é".repeat(127))).toHaveLength(127);
  });

  it("builds child paths", () => {
    expect(childPath(undefined, "a")).toBe("/a");
    expect(childPath("/a/b", "c")).toBe("/a/b/c");
  });
});
