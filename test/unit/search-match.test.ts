import { describe, expect, it } from "vitest";
import { rowMatcher, termPattern } from "../../src/domain/search/search.match.ts";
import { textTerms } from "../../src/domain/search/search.query.ts";

describe("search row matcher", () => {
  it("finds a term case- and accent-insensitively, in NFC and NFD text", () => {
    const amelie = termPattern("amelie");
    expect(amelie.test("/Movies/Amélie (2001).mkv")).toBe(true);
    expect(amelie.test("/Movies/AME\u0301LIE.mkv")).toBe(true);
    expect(amelie.test("/Movies/Ame lie.mkv")).toBe(false);
    expect(termPattern("AMÉLIE").test("/x/amelie")).toBe(true);
    expect(termPattern("ö").test("/Music/Motörhead")).toBe(true);
    expect(termPattern("o").test("/Music/MOTÖRHEAD")).toBe(true);
    expect(termPattern("ж").test("/Крёстный/Жук")).toBe(true);
    expect(termPattern("е").test("/Крёстный")).toBe(true);
    expect(termPattern("東京").test("/Docs/東京 夜景.txt")).toBe(true);
    expect(termPattern("🎉").test("/🎉 party/a.jpg")).toBe(true);
    // A Hangul syllable is kept whole, as the index keeps it (not split into its jamo).
    expect(termPattern("고양").test("/TV Shows/B 고양이 27")).toBe(true);
    expect(termPattern("고양").test("/TV Shows/B 고이 27")).toBe(false);
  });

  it("takes regular-expression characters literally", () => {
    for (const t of [".", "*", "(", "[", "]", "\\", "^", "$", "-", "?", "+", "|", "{"]) {
      expect(termPattern(t).test(`/a/x${t}y`), t).toBe(true);
      expect(termPattern(t).test("/a/xy"), t).toBe(false);
    }
    expect(termPattern("a.c").test("/abc")).toBe(false);
  });

  it("matches a term across a folder's '/' but not across the last one of a file's path", () => {
    const m = rowMatcher(["ic/Björk"]);
    expect(m("/Music/Björk/01.flac", "01.flac", false)).toBe(true);
    expect(m("/Music/Björk", "Björk", true)).toBe(true);
    const last = rowMatcher(["Björk/01"]);
    expect(last("/Music/Björk/01.flac", "01.flac", false)).toBe(false);
    expect(last("/Music/Björk/01", "01", true)).toBe(true);
    expect(rowMatcher(["music", "flac"])("/Music/Björk/01.flac", "01.flac", false)).toBe(true);
    expect(rowMatcher(["music", "mp3"])("/Music/Björk/01.flac", "01.flac", false)).toBe(false);
  });

  it("splits text into distinct terms, as folded, up to a limit", () => {
    expect(textTerms("  Final FINAL  final ", 16)).toEqual(["Final"]);
    expect(textTerms("a b c d", 2)).toEqual(["a", "b"]);
    expect(textTerms("", 16)).toEqual([]);
  });
});
