import { foldedGlobs, foldText, likeContains } from "./fold.ts";
import type { Sql } from "./search.query.ts";

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
