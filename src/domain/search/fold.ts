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
 * Blocks whose letters fold (foldText) to another character: Latin-1,
 * Latin Extended-A and B, Latin Extended Additional (Vietnamese: ộ, ơ, ư),
 * Greek, Cyrillic. The rows' own test (search.match.ts) and the GLOB
 * patterns below fold the same letters, as the index does.
 */
export const FOLDING_RANGES: readonly (readonly [number, number])[] = [
  [0xc0, 0x24f],
  [0x386, 0x3ce],
  [0x400, 0x45f],
  [0x1e00, 0x1eff],
];

/**
 * What an organization's names hold that the search's tests in SQL must
 * take care of (migration 0024): `rare`, letters of Latin Extended-B or
 * Additional; `marks`, combining marks (names stored decomposed, NFD).
 * Each costs those tests something on every name, so they cover it only
 * where it occurs.
 */
export interface NameLetters {
  rare: boolean;
  marks: boolean;
}

/** Both: what the tests cover when nothing is known of the names. */
export const ALL_LETTERS: NameLetters = { rare: true, marks: true };

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

/**
 * The UTF-8 lead byte of a letter of the blocks few names hold (Latin
 * Extended-B: 0xC6-0xC9; Latin Extended Additional: 0xE1, shared with
 * Greek Extended and a few scripts), else undefined. A pattern beginning
 * with such letters is tried only on text holding the byte (instr() on the
 * text as a blob: a byte search), not on all text with non-ASCII
 * characters, where a class tested at every position cost `mkv`
 * 26 → 67 ms and `photos` 20 → 48 on the bench's 1M library.
 */
function rareLead(ch: string): number | undefined {
  const lead = Buffer.from(ch)[0]!;
  return (lead >= 0xc6 && lead <= 0xc9) || lead === 0xe1 ? lead : undefined;
}

/** Folded character → every precomposed character that folds to it (itself included). */
const ALL_VARIANTS: Map<string, string[]> = new Map(
  [...foldsTo([[0x41, 0x5a], [0x61, 0x7a], ...FOLDING_RANGES])].map(([folded, others]) => [
    folded,
    [folded, ...others],
  ]),
);

/** The same without the rare blocks' letters (rareLead). */
const COMMON_VARIANTS: Map<string, string[]> = new Map(
  [...ALL_VARIANTS].map(([folded, all]) => [folded, all.filter((v) => rareLead(v) === undefined)]),
);

/**
 * The variants of folded characters: with the rare blocks' letters when
 * `rare` (the organization's names hold some: migration 0024), else
 * without them, whose classes are shorter.
 */
const variantsOf = (rare: boolean) => (rare ? ALL_VARIANTS : COMMON_VARIANTS);

/** GLOB's metacharacters, bracketed so that they match literally. */
const globLiteral = (ch: string) => (ch === "*" || ch === "?" || ch === "[" ? `[${ch}]` : ch);

/**
 * The inside of a GLOB class of `chars`: runs of three or more consecutive
 * code points as a range ("Ọ-ợ": the twenty-four o of Vietnamese). SQLite
 * reads a class character by character for every character it tests, so
 * a shorter class is a cheaper one.
 */
function classOf(chars: readonly string[]): string {
  const points = chars.map((c) => c.codePointAt(0)!).sort((a, b) => a - b);
  let out = "";
  for (let i = 0; i < points.length; ) {
    let j = i;
    while (points[j + 1] === points[j]! + 1) j++;
    out +=
      j - i >= 2
        ? `${String.fromCodePoint(points[i]!)}-${String.fromCodePoint(points[j]!)}`
        : String.fromCodePoint(...points.slice(i, j + 1));
    i = j + 1;
  }
  return out;
}

/** A GLOB class of `ch`'s case and accent variants in `variants`, or `ch` itself when it has none. */
const globClass = (variants: Map<string, string[]>) => (ch: string) => {
  const all = variants.get(ch);
  return all && all.length > 1 ? `[${classOf(all)}]` : globLiteral(ch);
};

/** True when some character of folded `term` has a non-ASCII variant (then a LIKE is not exact). */
const widened = (folded: string, variants: Map<string, string[]>) =>
  [...folded].some((ch) => variants.get(ch)?.some((v) => v > "~"));

/**
 * A SQLite GLOB pattern matching NFC text that contains `term` after
 * folding: each letter becomes a class of its case and accent variants
 * ("é" → [eEÈ-Ëè-ë…]); GLOB's own metacharacters are bracketed so they
 * match literally. Undefined when no character of the term has a non-ASCII
 * variant (then a LIKE on the folded term is already exact). The
 * reference foldedGlobs' patterns are split from (the searches use those;
 * their tests check the split against this), with every block's letters.
 */
export function foldedGlob(term: string): string | undefined {
  const folded = foldText(term.normalize("NFC"));
  return widened(folded, ALL_VARIANTS) ? `*${[...folded].map(globClass(ALL_VARIANTS)).join("")}*` : undefined;
}

/** foldedGlob's pattern split on its first character (foldedGlobs). */
export interface FoldedGlobs {
  /** One pattern per ASCII variant of the first character: a literal, which SQLite finds with a quick search. */
  ascii: string[];
  /** Beginning with the class of its other variants but the rare ones: only text with non-ASCII characters can match. */
  nonAscii?: string;
  /** Beginning with the class of its variants in rare blocks (rareLead), and those letters' lead bytes; only when asked. */
  rare?: { pattern: string; leads: number[] };
}

/**
 * foldedGlob's pattern split on the term's first character, for text read
 * row by row: after "*", SQLite finds a literal character with a quick
 * search, but tests a class at every position (half the cost of reading
 * the row, for a path). Text matches foldedGlob's pattern exactly when it
 * matches one of these. Undefined when foldedGlob is.
 */
export function foldedGlobs(term: string, rare: boolean): FoldedGlobs | undefined {
  const folded = foldText(term.normalize("NFC"));
  const all = variantsOf(rare);
  if (!widened(folded, all)) return undefined;
  const [first, ...others] = [...folded];
  const rest = `${others.map(globClass(all)).join("")}*`;
  const variants = all.get(first!) ?? [first!];
  const high = variants.filter((v) => v > "~" && rareLead(v) === undefined);
  const rareOnes = variants.filter((v) => rareLead(v) !== undefined);
  return {
    ascii: variants.filter((v) => v <= "~").map((v) => `*${globLiteral(v)}${rest}`),
    nonAscii: high.length > 0 ? `*[${classOf(high)}]${rest}` : undefined,
    rare:
      rareOnes.length > 0
        ? {
            pattern: `*[${classOf(rareOnes)}]${rest}`,
            leads: [...new Set(rareOnes.map((v) => rareLead(v)!))],
          }
        : undefined,
  };
}

/**
 * True when instr(), a LIKE or foldedGlobs' patterns (search.contains.ts
 * containsCondition) test `term` on text exactly as the rows' own test does
 * (search.match.ts termPattern): each of its characters without a case is
 * one folding leaves alone ("東京", "(", not a combining mark, which the
 * rows' test drops, nor "が", which it decomposes), and each with a case
 * folds to a letter whose variants the classes hold (not "Ґ", a full-width
 * "Ａ").
 */
export function foldsExactly(term: string): boolean {
  for (const ch of term.normalize("NFC")) {
    if (ch.toLowerCase() === ch.toUpperCase()) {
      if (foldText(ch) !== ch) return false;
      continue;
    }
    const folded = foldText(ch);
    if ([...folded].length !== 1 || !ALL_VARIANTS.has(folded)) return false;
  }
  return true;
}

/** A LIKE pattern (ESCAPE '\\') matching `term` anywhere. */
export function likeContains(term: string): string {
  return `%${term.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}
