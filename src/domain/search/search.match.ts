import type Database from "better-sqlite3";
import { FOLDING_RANGES, foldsTo, foldText } from "./fold.ts";

/**
 * The search's rule checked on one row in JavaScript, for the plans that
 * verify rows themselves instead of asking the FTS index (search.dense.ts):
 * every term occurs, case- and accent-insensitively, in the row's name or in
 * the path of the folder holding it (a directory: anywhere in its path). A
 * term without "/" cannot span a "/", so for it that is simply "somewhere in
 * the path".
 *
 * Each term becomes a regular expression over the stored (NFC or NFD) text:
 * every character a class of its case and accent variants, each followed by
 * any combining marks. Testing the raw text this way costs well under a
 * microsecond a row, where folding every path first (normalize, strip marks,
 * lower-case) costs about two.
 */
export type RowMatcher = (path: string, name: string, isDirectory: boolean) => boolean;

/** Folded character → the precomposed characters that fold to it (itself excluded). */
const FOLDS_TO = foldsTo(FOLDING_RANGES);

const escapeClass = (ch: string) => ch.replace(/[\\\][^-]/g, (c) => `\\${c}`);

const escapeText = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, (c) => `\\${c}`);

/**
 * A regular expression finding `term` (folded) in text, case- and
 * accent-insensitively. A character that decomposes into several letters
 * (a Hangul syllable into its jamo) is not folded: the index and SQL's
 * instr() keep it whole, so it matches itself.
 */
export function termPattern(term: string): RegExp {
  let source = "";
  for (const whole of term.normalize("NFC")) {
    const folded = [...foldText(whole)];
    if (folded.length > 1) {
      source += escapeText(whole);
      continue;
    }
    for (const ch of folded) {
      const variants = FOLDS_TO.get(ch) ?? [];
      source += `[${[ch, ...variants].map(escapeClass).join("")}]\\p{M}*`;
    }
  }
  return new RegExp(source, "iu");
}

/** A matcher for `terms` (as typed); every one must match. */
export function rowMatcher(terms: readonly string[]): RowMatcher {
  const plain = terms.filter((t) => !t.includes("/")).map(termPattern);
  const slashed = terms.filter((t) => t.includes("/")).map(termPattern);
  return (path, name, isDirectory) => {
    for (const re of plain) if (!re.test(path)) return false;
    if (slashed.length === 0) return true;
    const folder = isDirectory ? path : path.slice(0, path.length - name.length - 1);
    for (const re of slashed) if (!re.test(folder) && (isDirectory || !re.test(name))) return false;
    return true;
  };
}

/** The SQL function testing one text for one term as termPattern does (registerFoldContains). */
export const FOLD_CONTAINS = "fold_contains";

/** Distinct terms whose patterns a connection keeps (one search has at most MAX_TERMS). */
const KEPT_PATTERNS = 64;

/**
 * Registers FOLD_CONTAINS(text, term) on a connection: 1 when `text` holds
 * `term` as termPattern finds it (any combining marks after each letter),
 * else 0. For the few names stored decomposed (search.query.ts
 * decomposedCondition): a call into JavaScript costs ~1 µs a row.
 */
export function registerFoldContains(db: Database.Database): void {
  const patterns = new Map<string, RegExp>();
  db.function(FOLD_CONTAINS, { deterministic: true }, (text: unknown, term: unknown) => {
    if (typeof text !== "string" || typeof term !== "string") return 0;
    let pattern = patterns.get(term);
    if (!pattern) {
      if (patterns.size >= KEPT_PATTERNS) patterns.clear();
      pattern = termPattern(term);
      patterns.set(term, pattern);
    }
    return pattern.test(text) ? 1 : 0;
  });
}
