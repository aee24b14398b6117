import { foldedGlobs, foldText, likeContains } from "./fold.ts";
import { type Sql, shortTermCondition } from "./search.query.ts";

/**
 * `column` contains `term`, case- and accent-insensitively like the index:
 * instr() for a term without case, a LIKE when no letter of it has a
 * non-ASCII variant, else foldedGlobs' patterns (the non-ASCII one only
 * tried on text with non-ASCII characters).
 */
export function containsCondition(column: string, term: string): Sql {
  if (term.toLowerCase() === term.toUpperCase()) return { sql: `instr(${column}, ?) > 0`, params: [term] };
  const globs = foldedGlobs(term);
  if (!globs) return { sql: `${column} LIKE ? ESCAPE '\\'`, params: [likeContains(foldText(term))] };
  const any = globs.ascii.map(() => `${column} GLOB ?`);
  if (globs.nonAscii) any.push(`(length(${column}) <> octet_length(${column}) AND ${column} GLOB ?)`);
  return {
    sql: `(${any.join(" OR ")})`,
    params: [...globs.ascii, ...(globs.nonAscii ? [globs.nonAscii] : [])],
  };
}

/**
 * `column` contains the search term `text` as the index matches it (a term
 * without "/"): containsCondition, or shortTermCondition for a short term
 * the index did not resolve (`scanned`, Terms.short). The checks of the
 * plans that test terms on a row's text (folder terms, large files).
 */
export function termCondition(column: string, text: string, scanned: boolean): Sql {
  return scanned ? shortTermCondition(column, text) : containsCondition(column, text);
}
