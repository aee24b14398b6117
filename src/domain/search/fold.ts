/**
 * Folds text for accent- and case-insensitive matching: canonical
 * decomposition, combining marks dropped, Unicode lower case. "Amélie" and
 * "AMELIE" both fold to "amelie". Mirrors what the FTS5 trigram tokenizer
 * (`remove_diacritics 1 case_sensitive 0`) does to indexed text and queries.
 */
export function foldText(text: string): string {
  return text
    .normalize("NFD")
    .replace(/\p{M}+/gu, "")
    .toLowerCase();
}

/**
 * Letters whose case and accent variants short queries fold: Latin-1,
 * Latin Extended-A, Greek and basic Cyrillic. Kept to the common blocks
 * because every variant widens a GLOB class SQLite tests character by
 * character.
 */
const VARIANT_RANGES: [number, number][] = [
  [0x41, 0x5a],
  [0x61, 0x7a],
  [0xc0, 0x17f],
  [0x386, 0x3ce],
  [0x400, 0x45f],
];

/**
 * Folded character → the precomposed characters of `ranges` that fold to it
 * (foldText), itself excluded, in code point order.
 */
export function foldsTo(ranges: readonly (readonly [number, number])[]): Map<string, string[]> {
  const map = new Map<string, string[]>();
  for (const [lo, hi] of ranges) {
    for (let cp = lo; cp <= hi; cp++) {
      const ch = String.fromCodePoint(cp);
      const folded = foldText(ch);
      if ([...folded].length !== 1 || folded === ch) continue;
      const list = map.get(folded) ?? [];
      list.push(ch);
      map.set(folded, list);
    }
  }
  return map;
}

/** Folded character → every precomposed character that folds to it (itself included). */
const VARIANTS: Map<string, string[]> = new Map(
  [...foldsTo(VARIANT_RANGES)].map(([folded, others]) => [folded, [folded, ...others]]),
);

/**
 * A SQLite GLOB pattern matching NFC text that contains `term` after
 * folding: each letter becomes a class of its case and accent variants
 * ("é" → [eEèéêëÈÉÊË…]); GLOB's own metacharacters are bracketed so they
 * match literally. Undefined when no character of the term has a non-ASCII
 * variant (then a LIKE on the folded term is already exact). Runs inside
 * SQLite: no per-row call into JS.
 */
export function foldedGlob(term: string): string | undefined {
  let out = "*";
  let widened = false;
  for (const ch of foldText(term.normalize("NFC"))) {
    const variants = VARIANTS.get(ch);
    if (variants && variants.length > 1) {
      out += `[${variants.join("")}]`;
      widened ||= variants.some((v) => v > "~");
    } else if (ch === "*" || ch === "?" || ch === "[") out += `[${ch}]`;
    else out += ch;
  }
  return widened ? `${out}*` : undefined;
}

/** A LIKE pattern (ESCAPE '\\') matching `term` anywhere. */
export function likeContains(term: string): string {
  return `%${term.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}
