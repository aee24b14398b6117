import { sizeBucket } from "../../db/size-bucket.ts";
import {
  ALL_LETTERS,
  type FoldedGlobs,
  foldedGlobs,
  foldsTo,
  foldText,
  likeContains,
  type NameLetters,
} from "./fold.ts";
import { FOLD_CONTAINS } from "./search.match.ts";
import type { SearchSpec, Terms } from "./search.schemas.ts";

/**
 * Turns a validated search into SQL over `files` and the trigram FTS5 index
 * `files_fts`. Pure (no database), so every rule is unit-tested:
 *
 * - The text is split on white space; every term must occur somewhere in the
 *   path (the path ends with the name, so this is "name or path"), as a
 *   literal substring, case- and accent-insensitively.
 * - Terms of 3+ characters go to FTS5 MATCH as quoted strings (user input can
 *   never be read as FTS syntax). Shorter terms are resolved against the
 *   index first (search.repo.ts, `Expand`): the trigrams that begin with
 *   them, OR-ed (the index pads names so every character begins one, see
 *   migration 0011). Only a short term with too many such trigrams to OR
 *   (a single common letter) scans the candidate rows inside SQLite (see
 *   shortTermCondition).
 * - Every query is scoped to one organization and to live rows.
 */

/** More terms than this are ignored: each one is a MATCH phrase or a LIKE scan. */
export const MAX_TERMS = 16;
/** A trigram index needs at least this many characters in a term. */
export const TRIGRAM_MIN = 3;

/**
 * The indexed trigrams (as the tokenizer folded them) beginning with a
 * short term, or undefined when there are too many to OR. Backed by the
 * index's vocabulary (search.repo.ts).
 */
export type Expand = (term: string) => string[] | undefined;

/** An FTS5 string literal: the text can never be read as FTS syntax. */
export const quoted = (text: string) => `"${text.replaceAll('"', '""')}"`;

/** An FTS5 expression matching any of `texts` (at least one), each a string literal. */
export const anyOf = (texts: readonly string[]): string =>
  texts.length === 1 ? quoted(texts[0]!) : `(${texts.map(quoted).join(" OR ")})`;

/** How many texts an FTS expression asks for as alternatives (anyOf's; one for a quoted term). */
const alternativesIn = (expr: string): number => expr.split(" OR ").length;

/** True for a term too short for the trigram index to answer by itself. */
export const isShortTerm = (term: string): boolean => [...term].length < TRIGRAM_MIN;

/**
 * Lower-case letter → the lower-case letters that fold to it (foldText),
 * itself first, in the scripts whose accents the index's tokenizer keeps
 * (`remove_diacritics` folds Latin script alone): Greek (ά, ΐ: tonos,
 * dialytika) and Cyrillic (ё, й). The tokenizer folds their case.
 */
const KEPT_ACCENTS = new Map(
  [
    ...foldsTo([
      [0x386, 0x3ce],
      [0x400, 0x45f],
    ]),
  ].map(([letter, variants]) => [letter, [letter, ...variants.filter((v) => v === v.toLowerCase())]]),
);

/** Spellings a term's FTS expression ORs at most (termExpression); past them, the term as typed. */
export const MAX_SPELLINGS = 64;

/**
 * The spellings of `term` the index tells apart but the rows' own test
 * (search.match.ts) does not: for each Greek or Cyrillic letter whose
 * accents the index keeps, every letter that folds as it does; other
 * characters as typed. Undefined past MAX_SPELLINGS.
 */
export function spellingsOf(term: string): string[] | undefined {
  let spellings = [""];
  for (const ch of term.normalize("NFC")) {
    const variants = KEPT_ACCENTS.get(foldText(ch));
    if (!variants || variants.length === 1) {
      spellings = spellings.map((s) => s + ch);
      continue;
    }
    if (spellings.length * variants.length > MAX_SPELLINGS) return undefined;
    spellings = spellings.flatMap((s) => variants.map((v) => s + v));
  }
  return spellings;
}

/**
 * A term of TRIGRAM_MIN characters or more as an FTS5 expression, accent-
 * insensitive as the rows' own test is: the phrase, or the OR of its
 * spellings (spellingsOf: "αθηνα" finds "Αθήνα"; "крестный", "крёстный").
 * Past MAX_SPELLINGS (a long Greek phrase), the term as typed.
 */
export function termExpression(term: string): string {
  const spellings = spellingsOf(term);
  return !spellings || spellings.length === 1 ? quoted(term) : anyOf(spellings);
}

/**
 * The distinct terms of a search text as typed: split on white space,
 * duplicates after folding dropped (the first spelling kept), at most `max`.
 * Every plan splits the text this way.
 */
export function textTerms(text: string, max: number): string[] {
  const seen = new Map<string, string>();
  for (const raw of text.normalize("NFC").split(/\s+/u)) {
    const folded = foldText(raw);
    if (!folded || seen.has(folded)) continue;
    if (seen.size >= max) break;
    seen.set(folded, raw);
  }
  return [...seen.values()];
}

/**
 * Splits search text into distinct terms: long ones for FTS, short ones
 * through `expand` when given (else, and when it declines, left for a scan).
 */
export function splitTerms(text: string, expand?: Expand): Terms {
  const out: Terms = { fts: [], viaFolders: [], short: [], none: false };
  for (const raw of textTerms(text, MAX_TERMS)) {
    if (!isShortTerm(raw)) {
      out.fts.push(termExpression(raw));
      continue;
    }
    const trigrams = expand?.(raw);
    if (!trigrams) out.short.push(raw);
    else if (trigrams.length === 0) out.none = true;
    else out.fts.push(anyOf(trigrams));
  }
  return out;
}

/**
 * The trigrams of a quoted term, each quoted: one that a column of the
 * index never holds rules the term out of that column at the cost of its
 * own doclist, where the phrase reads every trigram's (search.repo.ts asks
 * whether any folder's path holds a term). Empty for other expressions (a
 * short term's trigrams OR-ed), terms of one trigram, and text with
 * combining marks.
 */
export function phraseTrigrams(expr: string): string[] {
  const text = /^"((?:[^"]|"")*)"$/u.exec(expr)?.[1]?.replaceAll('""', '"');
  const chars = [...(text ?? "")];
  if (chars.length <= TRIGRAM_MIN || /\p{M}/u.test(text!)) return [];
  return chars.slice(TRIGRAM_MIN - 1).map((_, i) => quoted(chars.slice(i, i + TRIGRAM_MIN).join("")));
}

/** The terms of a search: resolved against the index when the repository did so, else split alone. */
export const termsOf = (spec: SearchSpec): Terms => spec.terms ?? splitTerms(spec.text);

/** An FTS5 query matching rows that satisfy every expression (AND), in `column` if given. */
export function ftsExpression(terms: readonly string[], column?: "name" | "path"): string {
  const body = terms.join(" AND ");
  return column ? `${column} : (${body})` : body;
}

export interface Sql {
  sql: string;
  params: unknown[];
}

/** Rowids of rows matching `expr` in their own index row (name, or a directory's path). */
export const OWN_MATCHES = "SELECT rowid FROM files_fts WHERE files_fts MATCH ?";
/** Ids of the directories whose path matches. */
export const FOLDER_MATCHES =
  "SELECT d.id FROM files_fts JOIN files d ON d.rowid = files_fts.rowid WHERE files_fts MATCH ?";
const inPaths = (expr: string) => `path : (${expr})`;

/** `f` holds `expr` in its path: in its own index row, or in the path of the folder holding it. */
export function pathCondition(expr: string): Sql {
  return {
    sql: `(+f.rowid IN (${OWN_MATCHES}) OR f.parent_id IN (${FOLDER_MATCHES}))`,
    params: [expr, inPaths(expr)],
  };
}

/**
 * Rowids (`r`) of the organization's rows holding `expr` in their path
 * (pathCondition as a set); `within`, those in a range of rowids alone, and
 * the folders whose children they are too (a path filter's: RowidRange).
 */
export function pathMatches(organizationId: string, expr: string, within?: RowidRange): Sql {
  const r = rowidRange(within);
  return {
    sql:
      `SELECT rowid AS r FROM files_fts WHERE files_fts MATCH ?${r.sql("rowid")} UNION ` +
      `SELECT c.rowid FROM files c WHERE c.organization_id = ?${r.sql("c.rowid")} ` +
      `AND c.parent_id IN (${FOLDER_MATCHES}${r.sql("files_fts.rowid")})`,
    params: [expr, ...r.params, organizationId, ...r.params, inPaths(expr), ...r.params],
  };
}

/**
 * A range of rowids holding every row a path filter keeps (its folder's
 * descendants, search.span.ts, and the folder's own row): the general plan
 * reads the FTS index's matches within it alone, FTS5 reading a doclist's
 * range from the doclist itself ("x" under a folder of 174k rows in a
 * library of 1M: the rows of the library holding it, 238 -> 94 ms). The
 * path is still tested on every row: the range only narrows what is read.
 */
export interface RowidRange {
  lo: number;
  hi: number;
}

/** `within` as a condition to append to a WHERE on a rowid column, and its parameters (nothing without it). */
function rowidRange(within: RowidRange | undefined) {
  // BigInt: a number binds as a REAL, and FTS5 then reads the whole doclist (search.span.ts).
  const params = within ? [BigInt(within.lo), BigInt(within.hi)] : [];
  return { sql: (column: string) => (within ? ` AND ${column} BETWEEN ? AND ?` : ""), params };
}

/** What the organization's names hold that tests of terms in SQL must cover (SearchSpec.letters). */
export const lettersOf = (spec: SearchSpec): NameLetters => spec.letters ?? ALL_LETTERS;

/** Any of `tests` (at least one). */
const either = (tests: readonly Sql[]): Sql =>
  tests.length === 1
    ? tests[0]!
    : { sql: `(${tests.map((t) => t.sql).join(" OR ")})`, params: tests.flatMap((t) => t.params) };

/** `column` holds `folded` (a folded term), ASCII case-insensitively: exact when no letter of it has a non-ASCII variant. */
export const likeTest = (column: string, folded: string): Sql => ({
  sql: `${column} LIKE ? ESCAPE '\\'`,
  params: [likeContains(folded)],
});

/** foldedGlobs' patterns led by an ASCII letter, each a test of `column` (none without `globs`). */
export const asciiLedTests = (column: string, globs: FoldedGlobs | undefined): Sql[] =>
  (globs?.ascii ?? []).map((p) => ({ sql: `${column} GLOB ?`, params: [p] }));

/**
 * The tests of `term` on `column` that only text with a non-ASCII character
 * can pass: the pattern beginning with its first letter's non-ASCII
 * variants (`globs`); the rare letters' one, tried on text holding one of
 * their lead bytes (written as blob literals from the fixed table of
 * fold.ts rareLead); and, where the organization's names hold combining
 * marks, decomposedCondition.
 */
export function nonAsciiTests(
  column: string,
  term: string,
  globs: FoldedGlobs | undefined,
  letters: NameLetters,
): Sql[] {
  const tests: Sql[] = [];
  if (globs?.nonAscii) tests.push({ sql: `${column} GLOB ?`, params: [globs.nonAscii] });
  if (globs?.rare) {
    const holds = globs.rare.leads.map((b) => `instr(CAST(${column} AS BLOB), x'${b.toString(16)}') > 0`);
    tests.push({ sql: `((${holds.join(" OR ")}) AND ${column} GLOB ?)`, params: [globs.rare.pattern] });
  }
  if (letters.marks) tests.push(decomposedCondition(column, term));
  return tests;
}

/**
 * `column` passes one of `direct` or, when it holds a non-ASCII character,
 * one of `nonAscii`: one check (its length in characters against its
 * bytes) keeps plain ASCII text, most of a library's names, from every
 * test of the second kind.
 */
export function directOrNonAscii(column: string, direct: readonly Sql[], nonAscii: readonly Sql[]): Sql {
  if (nonAscii.length === 0) return either(direct);
  const guarded = either(nonAscii);
  return either([
    ...direct,
    { sql: `(length(${column}) <> octet_length(${column}) AND ${guarded.sql})`, params: guarded.params },
  ]);
}

/**
 * Text stored decomposed (holding a combining mark, U+0300-U+036F, whose
 * UTF-8 lead bytes are 0xCC and 0xCD) that holds `term` as the rows' own
 * test finds it (search.match.ts, called through FOLD_CONTAINS): LIKE and
 * GLOB see the marks between the letters ("Ame\u0301lie").
 */
export function decomposedCondition(column: string, term: string): Sql {
  const marked = `(instr(CAST(${column} AS BLOB), x'cc') > 0 OR instr(CAST(${column} AS BLOB), x'cd') > 0)`;
  return { sql: `(${marked} AND ${FOLD_CONTAINS}(${column}, ?))`, params: [term] };
}

/**
 * `column` contains the short term. Terms without cased letters (digits,
 * CJK, punctuation) match exactly with instr(); others with a LIKE of the
 * folded term (ASCII case-insensitive), and, on rows the LIKE missed that
 * hold a non-ASCII character, the GLOB patterns of the term's case and
 * accent variants and nonAsciiTests: "e" finds "Zoë" and "É", as the
 * index finds them for longer terms. Rows of plain ASCII, most of a
 * library, never reach the GLOBs.
 */
export function shortTermCondition(column: string, term: string, letters: NameLetters): Sql {
  if (term.toLowerCase() === term.toUpperCase()) return { sql: `instr(${column}, ?) > 0`, params: [term] };
  const folded = foldText(term);
  const globs = foldedGlobs(folded, letters.rare);
  return directOrNonAscii(
    column,
    [likeTest(column, folded)],
    [...asciiLedTests(column, globs), ...nonAsciiTests(column, term, globs, letters)],
  );
}

/** Ids of the files carrying every one of `tagIds`. */
function taggedFiles(tagIds: readonly string[]): Sql | undefined {
  if (tagIds.length === 0) return undefined;
  const marks = tagIds.map(() => "?").join(", ");
  return {
    sql: `SELECT file_id FROM file_tags WHERE tag_id IN (${marks}) GROUP BY file_id HAVING count(*) = ?`,
    params: [...tagIds, tagIds.length],
  };
}

/**
 * True when a search for directories only can be answered from the index's
 * paths of directories alone: every term in the index (none left for a
 * scan), no tags. A directory's row in the index holds its whole path, so a
 * directory holds a term exactly when its path there does; the children of
 * the folders holding a term (how files are found by their folders' names)
 * need not be read. "e" among directories at 1M rows read every row holding
 * "e" in its name or under a folder holding it (~950k) to keep 46k
 * directories: 2.2-2.8 s; from the paths of directories, 0.5-0.75 s.
 */
export function directoriesByPath(spec: SearchSpec): boolean {
  const { fts, viaFolders, short } = termsOf(spec);
  return (
    spec.type === "directory" &&
    spec.tagIds.length === 0 &&
    short.length === 0 &&
    fts.length + viaFolders.length > 0
  );
}

/**
 * True when a search of directories alone (no folder, dates or tags) has
 * only terms too short for the index by themselves, and asking the index
 * would read the doclists of at least DIRECTORY_SCAN_TRIGRAMS trigrams
 * they begin (or it could not be asked): the general plan then reads the
 * organization's directories (files_live_dirs_idx, ~50k rows at 1M, ~40-80
 * ms) and tests each term on their paths. In process at 1M rows: "a b"
 * (86 and 23 trigrams) among directories 158 -> 99 ms, "e" (132) 233 -> 82,
 * "ö" (80) 140 -> 70; "x y" (12 and 44) is left to the index (31 against
 * 47), as are two letters and CJK (one trigram: ~3 against ~40-70).
 */
export function directoriesScanned(spec: SearchSpec): boolean {
  if (spec.type !== "directory" || spec.tagIds.length > 0 || spec.path !== undefined) return false;
  if (spec.startDate !== undefined || spec.endDate !== undefined) return false;
  const terms = textTerms(spec.text, MAX_TERMS);
  if (terms.length === 0 || terms.some((t) => !isShortTerm(t) || t.includes("/"))) return false;
  const { fts, viaFolders, short } = termsOf(spec);
  if (short.length > 0) return true;
  const trigrams = [...fts, ...viaFolders].reduce((n, expr) => n + alternativesIn(expr), 0);
  return trigrams >= DIRECTORY_SCAN_TRIGRAMS;
}
const DIRECTORY_SCAN_TRIGRAMS = 64;

/**
 * FROM and WHERE shared by the count and the page query. `acl` is the
 * viewer's folder-grants condition on `f.acl_id` (access.ts aclCondition):
 * results, totals and pages only ever hold rows the viewer may read.
 */
export function searchFilter(organizationId: string, spec: SearchSpec, acl?: Sql, within?: RowidRange): Sql {
  const range = rowidRange(within);
  const scanned = directoriesScanned(spec);
  const terms = termsOf(spec);
  // Directories read one by one: every term tested on the row's path, none asked of the index.
  const { fts, viaFolders } = scanned ? { fts: [], viaFolders: [] } : terms;
  const short = scanned ? textTerms(spec.text, MAX_TERMS) : terms.short;
  const directoriesOnly = !scanned && directoriesByPath(spec);
  // A literal type: SQLite uses the partial index of directories only when the query implies its WHERE.
  const where: string[] = [
    "f.organization_id = ?",
    "f.is_deleted = 0",
    ...(scanned ? ["f.type = 'directory'"] : []),
  ];
  const params: unknown[] = [organizationId];
  // Without FTS the plan reads rows of the organization: through the path index for a
  // path filter, the creation dates' index for a date range, else through files_deleted_idx,
  // whose live entries are in rowid order (a sequential read; an index in name order would
  // make it random).
  const rows = scanned
    ? "files_live_dirs_idx"
    : spec.path
      ? "files_path_idx"
      : spec.startDate || spec.endDate
        ? "files_live_created_idx"
        : "files_deleted_idx";
  let from = `files f INDEXED BY ${rows}`;
  const fromParams: unknown[] = [];
  const tagged = taggedFiles(spec.tagIds);
  if (tagged) {
    // Drive from the (usually few) files carrying the tags, by primary key; FTS terms then
    // check against the set of matches, read once from the index.
    from = `(${tagged.sql}) t CROSS JOIN files f ON f.id = t.file_id`;
    fromParams.push(...tagged.params);
    if (fts.length > 0) {
      where.unshift("+f.rowid IN (SELECT rowid FROM files_fts WHERE files_fts MATCH ?)");
      fromParams.push(ftsExpression(fts));
    }
  } else if (directoriesOnly) {
    // A directory's own index row holds its whole path: every term is matched there alone.
    from = "files_fts JOIN files f ON f.rowid = files_fts.rowid";
    where.unshift(`files_fts MATCH ?${range.sql("files_fts.rowid")}`);
    fromParams.push(ftsExpression([...fts, ...viaFolders], "path"), ...range.params);
  } else if (fts.length > 0) {
    from = "files_fts JOIN files f ON f.rowid = files_fts.rowid";
    where.unshift(`files_fts MATCH ?${range.sql("files_fts.rowid")}`);
    fromParams.push(ftsExpression(fts), ...range.params);
  } else if (viaFolders.length > 0) {
    // Every term is also in folder paths: drive from the intersection of their sets of rowids
    // (rows and folders' children), built from indexes alone, before reading any row.
    const sets = viaFolders.map((expr) => pathMatches(organizationId, expr, within));
    from = `(${sets.map((q) => `SELECT r FROM (${q.sql})`).join(" INTERSECT ")}) m CROSS JOIN files f ON f.rowid = m.r`;
    fromParams.push(...sets.flatMap((q) => q.params));
  }
  const add = (s: string, ...p: unknown[]) => {
    where.push(s);
    params.push(...p);
  };
  // With another driver, each folder-path term is a condition (its sets built once per query).
  for (const expr of (fts.length === 0 && !tagged) || directoriesOnly ? [] : viaFolders) {
    const c = pathCondition(expr);
    add(c.sql, ...c.params);
  }
  for (const term of short) {
    const c = shortTermCondition("f.path", term, lettersOf(spec));
    add(c.sql, ...c.params);
  }
  // With FTS terms, "+" keeps the plan driven by the FTS index instead of files_path_idx.
  const filters = rowFilters(spec, fts.length > 0 || directoriesOnly);
  if (filters.sql.length > 0) add(filters.sql.join(" AND "), ...filters.params);
  if (acl) add(acl.sql, ...acl.params);
  return { sql: `FROM ${from} WHERE ${where.join(" AND ")}`, params: [...fromParams, ...params] };
}

/**
 * `f` is the folder `path` or under it. The range [p, p + "0") can use
 * files_path_idx (not when `unindexed`); the OR keeps "/Photos" and
 * "/Photos/…" but not "/Photos.bak".
 */
export function pathRange(path: string, unindexed: boolean): Sql {
  const col = unindexed ? "+f.path" : "f.path";
  return {
    sql: `${col} >= ? AND ${col} < ? AND (f.path = ? OR f.path >= ?)`,
    params: [path, `${path}0`, path, `${path}/`],
  };
}

/** SQL conditions on `f`, ANDed, with their parameters. */
export interface Conditions {
  sql: string[];
  params: unknown[];
}

/**
 * The search's conditions other than its text and tags: path prefix, type,
 * size and dates. `unindexed` keeps the path range, sizes and dates off
 * files_path_idx, files_live_size_idx and files_live_created_idx ("+f.path")
 * when another index drives the plan.
 */
export function rowFilters(spec: SearchSpec, unindexed: boolean): Conditions {
  const out: Conditions = { sql: [], params: [] };
  const add = (s: string, ...p: unknown[]) => {
    out.sql.push(s);
    out.params.push(...p);
  };
  if (spec.path) {
    const range = pathRange(spec.path, unindexed);
    add(range.sql, ...range.params);
  }
  if (spec.type) add("f.type = ?", spec.type);
  // files_live_size_idx would otherwise tempt the planner to walk sizes and probe FTS row by row.
  const size = unindexed ? "+f.size" : "f.size";
  if (spec.minSize !== undefined) add(`${size} >= ?`, spec.minSize);
  if (spec.maxSize !== undefined) add(`${size} <= ?`, spec.maxSize);
  const created = unindexed ? "+f.created_at" : "f.created_at";
  if (spec.startDate) add(`${created} >= ?`, spec.startDate);
  if (spec.endDate) add(`${created} <= ?`, spec.endDate);
  return out;
}

/**
 * ORDER BY for a search. Ties always break on id so pages never overlap.
 * `relevance` puts rows whose name holds every term before path-only
 * matches, then shorter names, then by name; it is always best-first.
 */
export function searchOrder(spec: SearchSpec, within?: RowidRange): Sql {
  if (spec.sortBy === "relevance") return relevanceOrder(spec, within);
  // "+": the general plan reads every match anyway (it counts them), so an index in the
  // order would only turn its sequential read into a random one; the indexes are for the
  // plans that walk them (walkOrder).
  return { sql: sortTerms(spec, "+"), params: [] };
}

/**
 * The ORDER BY terms of a sort other than relevance, the columns an index
 * holds in that order written `${mark}column`: "+" keeps SQLite off the
 * index (searchOrder), "" lets a walk read it (walkOrder). One definition,
 * so that every plan pages in the same order.
 */
function sortTerms(spec: SearchSpec, mark: "+" | ""): string {
  const dir = spec.sortOrder === "desc" ? "DESC" : "ASC";
  const byName = `${mark}f.name COLLATE NOCASE ${dir}, f.name ${dir}, f.id ${dir}`;
  switch (spec.sortBy) {
    case "size":
      return `f.size ${dir}, ${byName}`;
    case "created_at":
      return `${mark}f.created_at ${dir}, f.id ${dir}`;
    case "updated_at":
      return `${mark}f.updated_at ${dir}, f.id ${dir}`;
    default:
      return byName;
  }
}

/**
 * Files from this size on are in files_live_size_idx (migration 0015): a
 * walk by size covers them only, so it answers the largest first, or sizes
 * from a minimum this large. Indexing every row by size made inserts ~30%
 * dearer (a random page dirtied per row); large files are a small share of
 * a library's rows.
 */
export const LARGE_FILE_BYTES = 104_857_600;

/**
 * A row's size bucket as files_live_size_bucket_idx holds it (migration
 * 0021): its number of digits, then its first two digits. Buckets follow
 * sizes in order, and a size below EXACT_BUCKETS_BELOW is a bucket of its
 * own (every row in it the same size).
 */
export const SIZE_BUCKET = `(${sizeBucket("f.size")})`;
export const EXACT_BUCKETS_BELOW = 100;

/**
 * FROM … WHERE of the organization's live rows in the buckets that can hold
 * a search's range of sizes (files_live_size_bucket_idx; each row's exact
 * size is the caller's to check).
 */
export function sizeBucketRange(organizationId: string, spec: SearchSpec): Sql {
  const [lowest, highest] = sizeBuckets(spec);
  return {
    sql:
      "FROM files f INDEXED BY files_live_size_bucket_idx " +
      `WHERE f.organization_id = ? AND f.is_deleted = 0 AND ${SIZE_BUCKET} BETWEEN ? AND ?`,
    params: [organizationId, lowest, highest],
  };
}

/** The first and last SIZE_BUCKET that can hold a search's range of sizes (every one without it). */
export function sizeBuckets(spec: SearchSpec): [lowest: number, highest: number] {
  return [
    sizeBucketOf(spec.minSize ?? 0),
    spec.maxSize === undefined ? Number.MAX_SAFE_INTEGER : sizeBucketOf(spec.maxSize),
  ];
}

/** SIZE_BUCKET of a size in bytes, as SQLite computes it from the integer's decimal text. */
export function sizeBucketOf(bytes: number): number {
  const text = String(Math.max(0, Math.floor(bytes)));
  return text.length * 100 + Number(text.slice(0, 2));
}

/** An index of live rows in a sort's order, and that order as a walk of it reads rows. */
export interface WalkOrder {
  index: string;
  /** searchOrder's order, written so that SQLite reads it from the index (ties sorted as they come). */
  order: string;
  /**
   * The index's own condition besides live rows ("1" when none): by size,
   * files of LARGE_FILE_BYTES or more; directories only, directories.
   */
  range: string;
}

/**
 * The index a plan walks to read rows in the search's order: by name every
 * live row (the directories alone when only they are asked for), by date
 * every live row (migration 0018), by size the large files only. Undefined
 * by relevance (no index holds that order).
 */
export function walkOrder(spec: SearchSpec): WalkOrder | undefined {
  const order = sortTerms(spec, "");
  switch (spec.sortBy) {
    case "name":
      // Directories are a twentieth of a library's rows, and not spread evenly over names.
      if (spec.type === "directory")
        return { index: "files_live_dirs_idx", order, range: "f.type = 'directory'" };
      return { index: "files_live_name_idx", order, range: "1" };
    case "size":
      // A literal bound: SQLite uses a partial index only when the query implies its WHERE.
      return { index: "files_live_size_idx", order, range: `f.size >= ${LARGE_FILE_BYTES}` };
    case "updated_at":
      return { index: "files_live_updated_idx", order, range: "1" };
    case "created_at":
      return { index: "files_live_created_idx", order, range: "1" };
    default:
      return undefined;
  }
}

function relevanceOrder(spec: SearchSpec, within?: RowidRange): Sql {
  const { short, ...terms } = termsOf(spec);
  const fts = [...terms.fts, ...terms.viaFolders];
  const tail = "length(f.name), f.name COLLATE NOCASE, f.id";
  if (fts.length === 0 && short.length === 0) return { sql: tail, params: [] };
  const conds: string[] = [];
  const params: unknown[] = [];
  if (fts.length > 0) {
    // The rows' names within the range alone (every row sorted lies within it).
    const range = rowidRange(within);
    conds.push(`f.rowid IN (SELECT rowid FROM files_fts WHERE files_fts MATCH ?${range.sql("rowid")})`);
    params.push(ftsExpression(fts, "name"), ...range.params);
  }
  for (const term of short) {
    const c = shortTermCondition("f.name", term, lettersOf(spec));
    conds.push(c.sql);
    params.push(...c.params);
  }
  return { sql: `CASE WHEN ${conds.join(" AND ")} THEN 0 ELSE 1 END, ${tail}`, params };
}

/** `cond` as a clause to append to a WHERE (" AND …"); nothing when absent or always true ("1"). */
export const andClause = (cond?: Sql): Sql =>
  cond && cond.sql !== "1" ? { sql: ` AND ${cond.sql}`, params: cond.params } : { sql: "", params: [] };

/** `from` (a FROM … WHERE on `f`) with `conds` ANDed to its WHERE. */
export function andWhere(from: Sql, conds: readonly Sql[]): Sql {
  return {
    sql: [from.sql, ...conds.map((c) => c.sql)].join(" AND "),
    params: [...from.params, ...conds.flatMap((c) => c.params)],
  };
}

/** The count of every match. */
export function countQuery(organizationId: string, spec: SearchSpec, acl?: Sql, within?: RowidRange): Sql {
  return countOf(searchFilter(organizationId, spec, acl, within));
}

/** The count of the rows of `from` (a FROM … WHERE on `f`). */
export function countOf(from: Sql): Sql {
  return { sql: `SELECT count(*) AS n ${from.sql}`, params: from.params };
}

/** The rows of `from` (a FROM … WHERE), counted up to `bound` + 1: enough to tell whether there are more. */
export function countUpTo(from: Sql, bound: number): Sql {
  return {
    sql: `SELECT count(*) AS n FROM (SELECT 1 ${from.sql} LIMIT ${Math.floor(bound) + 1})`,
    params: from.params,
  };
}

/** Ids of one window of matches, in order, each with the count of all matches. */
export function pageQuery(
  organizationId: string,
  spec: SearchSpec,
  limit: number,
  offset: number,
  acl?: Sql,
  within?: RowidRange,
): Sql {
  return windowOf(
    searchFilter(organizationId, spec, acl, within),
    spec,
    limit,
    offset,
    searchOrder(spec, within),
  );
}

/**
 * Ids of one window of the rows of `from` (a FROM … WHERE on `f`) in the
 * search's order (or `order`, the same order written for another plan),
 * with their count.
 */
export function windowOf(
  from: Sql,
  spec: SearchSpec,
  limit: number,
  offset: number,
  order: Sql = searchOrder(spec),
): Sql {
  return {
    sql: `SELECT f.id AS id, count(*) OVER () AS total ${from.sql} ORDER BY ${order.sql} LIMIT ? OFFSET ?`,
    params: [...from.params, ...order.params, limit, offset],
  };
}
