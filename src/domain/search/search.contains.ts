import { foldedGlobs, foldText, type NameLetters } from "./fold.ts";
import {
  asciiLedTests,
  directOrNonAscii,
  likeTest,
  nonAsciiTests,
  type Sql,
  shortTermCondition,
} from "./search.query.ts";

/**
 * `column` contains `term`, case- and accent-insensitively like the index:
 * instr() for a term without case, a LIKE when no letter of it has a
 * non-ASCII variant, else foldedGlobs' patterns (the non-ASCII one only
 * tried on text with non-ASCII characters, the rare letters' one on text
 * holding one of their lead bytes), and decomposed text tested in
 * JavaScript, each where the organization's names hold such letters.
 * Unlike shortTermCondition, no LIKE before the patterns: with the
 * non-ASCII length test after it, walks of the name index tested that way
 * were slower (`mkv` by name 22.9 → 37.0 ms at 1M rows, in process).
 */
export function containsCondition(column: string, term: string, letters: NameLetters): Sql {
  if (term.toLowerCase() === term.toUpperCase()) return { sql: `instr(${column}, ?) > 0`, params: [term] };
  const globs = foldedGlobs(term, letters.rare);
  const direct = globs ? asciiLedTests(column, globs) : [likeTest(column, foldText(term))];
  return directOrNonAscii(column, direct, nonAsciiTests(column, term, globs, letters));
}

/**
 * `column` contains the search term `text` as the index matches it (a term
 * without "/"): containsCondition, or shortTermCondition for a short term
 * the index did not resolve (`scanned`, Terms.short). The checks of the
 * plans that test terms on a row's text (folder terms, large files).
 */
export function termCondition(column: string, text: string, scanned: boolean, letters: NameLetters): Sql {
  return scanned ? shortTermCondition(column, text, letters) : containsCondition(column, text, letters);
}
