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

/** GLOB's metacharacters, bracketed so that they match literally. */
const globLiteral = (ch: string) => (ch === "*" || ch === "?" || ch === "[" ? `[${ch}]` : ch);

/** A GLOB class of `ch`'s case and accent variants, or `ch` itself when it has none. */
const globClass = (ch: string) => {
  const variants = VARIANTS.get(ch);
  return variants && variants.length > 1 ? `[${variants.join("")}]` : globLiteral(ch);
};

/** True when some character of folded `term` has a non-ASCII variant (then a LIKE is not exact). */
const widened = (folded: string) => [...folded].some((ch) => VARIANTS.get(ch)?.some((v) => v > "~"));

/**
 * A SQLite GLOB pattern matching NFC text that contains `term` after
 * folding: each letter becomes a class of its case and accent variants
 * ("é" → [eEèéêëÈÉÊË…]); GLOB's own metacharacters are bracketed so they
 * match literally. Undefined when no character of the term has a non-ASCII
 * variant (then a LIKE on the folded term is already exact). Runs inside
 * SQLite: no per-row call into JS.
 */
export function foldedGlob(term: string): string | undefined {
  const folded = foldText(term.normalize("NFC"));
  return widened(folded) ? `*${[...folded].map(globClass).join("")}*` : undefined;
}

/**
 * foldedGlob's pattern split on the term's first character, for text read
 * row by row: after "*", SQLite finds a literal character with a quick
 * search, but tests a class at every position (half the cost of reading
 * the row, for a path). `ascii` has one pattern per ASCII variant of that
 * character (a literal); `nonAscii`, when there are such variants, one
 * starting with their class, which only text with non-ASCII characters can
 * match. Text matches foldedGlob's pattern exactly when it matches one of
 * these. Undefined when foldedGlob is.
 */
export function foldedGlobs(term: string): { ascii: string[]; nonAscii?: string } | undefined {
  const folded = foldText(term.normalize("NFC"));
  if (!widened(folded)) return undefined;
  const [first, ...others] = [...folded];
  const rest = `${others.map(globClass).join("")}*`;
  const variants = VARIANTS.get(first!) ?? [first!];
  const high = variants.filter((v) => v > "~");
  return {
    ascii: variants.filter((v) => v <= "~").map((v) => `*${globLiteral(v)}${rest}`),
    nonAscii: high.length > 0 ? `*[${high.join("")}]${rest}` : undefined,
  };
}

/** A LIKE pattern (ESCAPE '\\') matching `term` anywhere. */
export function likeContains(term: string): string {
  return `%${term.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}
