import type { Statement } from "better-sqlite3";
import { foldsExactly } from "./fold.ts";
import { maxRowidQuery } from "./search.broad.ts";
import { containsCondition } from "./search.contains.ts";
import { type RowMatcher, rowMatcher } from "./search.match.ts";
import {
  andClause,
  anyOf,
  countUpTo,
  EXACT_BUCKETS_BELOW,
  type Expand,
  isShortTerm,
  LARGE_FILE_BYTES,
  lettersOf,
  MAX_TERMS,
  rowFilters,
  SIZE_BUCKET,
  type Sql,
  searchOrder,
  sizeBucketOf,
  sizeBuckets,
  splitTerms,
  termExpression,
  termsOf,
  textTerms,
  walkOrder,
} from "./search.query.ts";
import type { SearchSpec } from "./search.schemas.ts";
import {
  folderMatch,
  folderTerms,
  idList,
  inFolders,
  inSet,
  nameSet,
  setOrder,
  setRowsQuery,
  setWalkQuery,
  spannedMatch,
  textSet,
} from "./search.sets.ts";
import { pureSpan, type Span, spansCondition } from "./search.span.ts";

/**
 * The plan for dense searches: text whose matches are a sizeable share of
 * the library ("invoice", "2160p", "zo", "mkv" over 1 GB by size). Asking
 * the FTS index costs in proportion to the matches (every doclist of a
 * common trigram read, positions checked, every match joined to its row to
 * sort and count it); this plan costs in proportion to one page instead:
 *
 * - estimate: the search's rule (search.match.ts) over a fixed sample of the
 *   table (SAMPLE_WINDOWS runs of WINDOW_ROWS consecutive rowids, spread
 *   evenly; a quarter of them first, and none of the rest when those hold
 *   no match), filters and folder grants applied in SQL; matches in the
 *   sample, scaled to the rowid range, estimate the total. Only when that is
 *   above EXACT_TOTAL_BOUND is the plan used, so smaller totals stay exact;
 * - page: walk the index of the requested order (search.query.ts
 *   walkOrder: names, dates, or files_live_size_idx for large files:
 *   LARGE_FILE_BYTES), filters and grants in SQL, and test each row's
 *   path against the terms in JavaScript, stopping once the page is full.
 *   Reaching the end of the walk makes the total exact. By size (below a
 *   large minimum), the walk reads files_live_size_bucket_idx a bucket of
 *   sizes at a time and sorts each bucket's matches, and a bucket of one
 *   size holding many rows is walked by name instead (its rows' order).
 *   By relevance, rows
 *   whose name holds every term come first (search.query.ts relevanceOrder),
 *   shortest names first (files_live_length_idx), then the other matches.
 *   Where a walk reading each row it passes would give up (the matches
 *   gather late in the order), walks that read no row they pass: over the
 *   names, tested in SQL, when names alone decide; by name, over each
 *   entry's folder, tested in the index (a path filter, or terms in
 *   folders' paths); or over the set of every match SQLite builds once
 *   from the FTS index (search.sets.ts).
 *
 * The order and tie-breaks are the general plan's (search.query.ts
 * searchOrder), so a page is the same rows in the same order.
 */

/** Runs of consecutive rowids the estimate reads. */
export const SAMPLE_WINDOWS = 512;
/** Rows in each run: a few siblings share their folder's pages. */
export const WINDOW_ROWS = 4;

/** True when the dense plan can answer `spec`: text to match, no tags. */
export function denseEligible(spec: SearchSpec): boolean {
  return spec.text !== "" && spec.tagIds.length === 0;
}

/** By size from a minimum this large, files_live_size_idx holds every candidate in the sort's order. */
const fromLargeMinimum = (spec: SearchSpec) => (spec.minSize ?? 0) >= LARGE_FILE_BYTES;

/** The first rowid of each window of the sample over rowids 1..maxRowid. */
export function sampleStarts(maxRowid: number): number[] {
  const step = Math.max(WINDOW_ROWS, Math.floor(maxRowid / SAMPLE_WINDOWS));
  const starts: number[] = [];
  for (let start = 1; start <= maxRowid && starts.length < SAMPLE_WINDOWS; start += step) starts.push(start);
  return starts;
}

/** The sample's two parts: a quarter of the windows, read first, and the rest (sampleStarts). */
export type SamplePart = "first" | "rest";

/** The first rowid of each window of the sample's `part` over rowids 1..maxRowid. */
export function samplePart(maxRowid: number, part: SamplePart): number[] {
  return sampleStarts(maxRowid).filter((_, i) => (i % 4 === 0) === (part === "first"));
}

/** How many rowids of 1..maxRowid the windows starting at `starts` cover: what the sample's matches scale from. */
export function sampledRowids(starts: readonly number[], maxRowid: number): number {
  return starts.reduce((n, start) => n + Math.max(0, Math.min(WINDOW_ROWS, maxRowid - start + 1)), 0);
}

/** How many rowids of 1..maxRowid each one the whole sample reads stands for. */
export const sampleScale = (maxRowid: number): number =>
  maxRowid / Math.max(1, sampledRowids(sampleStarts(maxRowid), maxRowid));

/** The search's conditions on `f` other than its text (filters and `acl`), ANDed; "1" when none. */
function allConditions(spec: SearchSpec, acl?: Sql): Sql {
  const filters = rowFilters(spec, true);
  if (acl) {
    filters.sql.push(acl.sql);
    filters.params.push(...acl.params);
  }
  return { sql: filters.sql.join(" AND ") || "1", params: filters.params };
}

/**
 * Which rows a walk in the search's order reads besides the organization's
 * live ones: by size, the large files within the size bounds (a literal
 * bound, so that SQLite sees the walk stays within the partial index); by
 * name for directories only, the directories (walkOrder's range).
 */
function walkedRange(spec: SearchSpec): Sql {
  if (spec.sortBy !== "size") return { sql: walkOrder(spec)?.range ?? "1", params: [] };
  // BETWEEN gives the index range both bounds: of two lower bounds, SQLite starts the range at
  // the first one written, and starting at 100 MiB for "over 1 GB" read ~60k entries more.
  return {
    sql: `f.size >= ${LARGE_FILE_BYTES} AND f.size BETWEEN ? AND ?`,
    params: [Math.max(spec.minSize ?? 0, LARGE_FILE_BYTES), spec.maxSize ?? Number.MAX_SAFE_INTEGER],
  };
}

const LIVE = "f.organization_id = ? AND f.is_deleted = 0";

/** Columns of a Candidate: id, path, name, dir, whether the row passes `ok`, whether a walk reads it, size. */
const columns = (ok: Sql, walked: Sql) =>
  `f.id AS id, f.path AS path, f.name AS name, f.type = 'directory' AS dir, (${ok.sql}) AS ok, (${walked.sql}) AS w, f.size AS size`;

/**
 * `columns` of the organization's live rows in the sample's windows, those
 * starting at `starts`. NOT INDEXED: with the organization in the WHERE,
 * SQLite would rather walk an organization-prefixed index once per window.
 */
const inWindows = (columns: string, organizationId: string, starts: readonly number[]): Sql => ({
  sql:
    `SELECT ${columns} FROM json_each(?) w CROSS JOIN files f NOT INDEXED ` +
    `ON f.rowid >= w.value AND f.rowid < w.value + ${WINDOW_ROWS} WHERE ${LIVE}`,
  params: [JSON.stringify(starts), organizationId],
});

/**
 * A row of the sample as every search reads it, kept until the database
 * changes (search.repo.ts): id, path, name, whether a directory, rowid,
 * size bucket and size, its name case-folded as NOCASE compares it, and its
 * dates.
 */
export type SampleRow = readonly [
  id: string,
  path: string,
  name: string,
  dir: number,
  rowid: number,
  bucket: number,
  size: number,
  folded: string,
  created: string,
  updated: string,
];

/**
 * The sample's rows in the windows starting at `starts`, whatever the
 * search (SampleRow; sampleRow fills in the bucket and the folded name).
 */
export function sampleRowsQuery(organizationId: string, starts: readonly number[]): Sql {
  return inWindows(
    "f.id, f.path, f.name, f.type = 'directory', f.rowid, 0, f.size, '', f.created_at, f.updated_at",
    organizationId,
    starts,
  );
}

/**
 * Whether a walk reads each of `rows` for a search with no filter
 * (walkedRange: by size, from LARGE_FILE_BYTES up; undefined: every row).
 */
export const sampleWalked = (spec: SearchSpec, rows: readonly SampleRow[]): number[] | undefined =>
  spec.sortBy === "size" ? rows.map((r) => (r[6] >= LARGE_FILE_BYTES ? 1 : 0)) : undefined;

/** A row of sampleRowsQuery with its size bucket and folded name. */
export const sampleRow = (raw: unknown[]): SampleRow => {
  const [id, path, name, dir, rowid, , size, , created, updated] = raw as [
    string,
    string,
    string,
    number,
    number,
    0,
    number,
    "",
    string,
    string,
  ];
  return [id, path, name, dir, rowid, sizeBucketOf(size), size, nocase(name), created, updated];
};

/**
 * Per search, the flags of the sample's rows: rowid, whether the row passes
 * the search's other conditions (`ok`: the total's estimate) and whether a
 * walk in its order reads it (`w`: the walk's density, walkedRange);
 * undefined when the kept rows tell them: no filter and no grants, so every
 * row passes, and a walk reads every row or, by size, the large files
 * (sampleWalked).
 */
export function sampleFlagsQuery(
  organizationId: string,
  spec: SearchSpec,
  starts: readonly number[],
  acl?: Sql,
): Sql | undefined {
  const ok = allConditions(spec, acl);
  const walked = walkedRange(spec);
  if (ok.sql === "1" && (walked.sql === "1" || spec.sortBy === "size")) return undefined;
  const q = inWindows(`f.rowid, (${ok.sql}), (${walked.sql})`, organizationId, starts);
  return { sql: q.sql, params: [...ok.params, ...walked.params, ...q.params] };
}

/**
 * Candidate rows in the search's order, walking the order's index; the
 * caller tests each and stops after one page.
 */
export function walkQuery(organizationId: string, spec: SearchSpec, acl?: Sql, within?: Sql): Sql {
  // The walked range is in the WHERE (the index's range); the rest is a column, so that every
  // row read counts against the walk's budget, rows a filter rejects too.
  const walked = walkedRange(spec);
  const ok = allConditions(spec, acl);
  const { index, order } = walkOrder(spec)!;
  const span = andClause(within);
  return {
    sql:
      `SELECT ${columns(ok, { sql: "1", params: [] })} FROM files f INDEXED BY ${index} ` +
      `WHERE ${LIVE} AND ${walked.sql}${span.sql} ORDER BY ${order}`,
    params: [...ok.params, organizationId, ...walked.params, ...span.params],
  };
}

/**
 * The text's terms when SQLite can test each exactly as search.match.ts
 * does: without "/" (such a term may span a folder and a name) and folded
 * exactly (fold.ts foldsExactly). Undefined otherwise.
 */
function exactTerms(text: string): string[] | undefined {
  const terms = textTerms(text, MAX_TERMS);
  return terms.length > 0 && terms.every((t) => !t.includes("/") && foldsExactly(t)) ? terms : undefined;
}

/**
 * The text as a condition on `f.path` that SQLite tests exactly as
 * search.match.ts does, when every term is one (exactTerms) without a
 * character that has a case: instr() ("(", "#", "2019", "東京"). A row read
 * and tested in SQL costs ~0.27 µs at 1M rows, against ~0.9 µs handed to
 * JavaScript and tested there; terms with letters, tested on paths in SQL,
 * were measured no cheaper (9bbf6e2). Undefined otherwise.
 */
export function pathTextCondition(text: string): Sql | undefined {
  const terms = exactTerms(text);
  if (!terms || terms.some((t) => t.toLowerCase() !== t.toUpperCase())) return undefined;
  return { sql: terms.map(() => "instr(f.path, ?) > 0").join(" AND "), params: terms };
}

/**
 * The text as a condition on names (`f.name`) that SQLite tests exactly as
 * search.match.ts tests a name, when every term can be (exactTerms), each
 * tested by containsCondition under the organization's letters (rare
 * letters and names stored decomposed where it has them). Undefined
 * otherwise.
 */
export function namesTextCondition(spec: SearchSpec): Sql | undefined {
  const terms = exactTerms(spec.text);
  if (!terms) return undefined;
  const conds = terms.map((t) => containsCondition("f.name", t, lettersOf(spec)));
  return { sql: conds.map((c) => c.sql).join(" AND "), params: conds.flatMap((c) => c.params) };
}

/**
 * A walk of the search's order tested in SQL (walkQuery's rows, `text` and
 * the other conditions tested on each): the rowids of matches `offset` on,
 * at most `limit`, among the first `budget` rows of the order.
 */
export function testedWalkQuery(
  organizationId: string,
  spec: SearchSpec,
  text: Sql,
  budget: number,
  limit: number,
  offset: number,
  acl?: Sql,
  within?: Sql,
): Sql {
  const walked = walkedRange(spec);
  const ok = allConditions(spec, acl);
  const { index, order } = walkOrder(spec)!;
  const span = andClause(within);
  return {
    sql:
      `SELECT r FROM (SELECT f.rowid AS r, (${ok.sql}) AND ${text.sql} AS hit FROM files f INDEXED BY ${index} ` +
      `WHERE ${LIVE} AND ${walked.sql}${span.sql} ORDER BY ${order} LIMIT ?) WHERE hit LIMIT ? OFFSET ?`,
    params: [
      ...ok.params,
      ...text.params,
      organizationId,
      ...walked.params,
      ...span.params,
      Math.floor(budget),
      limit,
      offset,
    ],
  };
}

/**
 * walkQuery's rows among the first `budget` of the order that pass the
 * search's other conditions (filters, grants), tested in SQL: only those
 * are handed to JavaScript, to test the text on.
 */
export function filteredWalkQuery(
  organizationId: string,
  spec: SearchSpec,
  budget: number,
  acl?: Sql,
  within?: Sql,
): Sql {
  const q = walkQuery(organizationId, spec, acl, within);
  return { sql: `SELECT * FROM (${q.sql} LIMIT ?) WHERE ok`, params: [...q.params, Math.floor(budget)] };
}

/**
 * How many entries of `index` (within `range` and `within`) a walk of
 * `most` rows could read, up to `most` + 1, counted from the index alone:
 * more than `most` when a walk tested in SQL stopped at its budget. The
 * count is the same in any order, so the entries are counted in the
 * index's own: in the search's order by name (its ties broken by the exact
 * name and id, which the index does not hold) SQLite sorted them first,
 * 18 ms for `07` from 1 byte's 11.5k at 1M rows.
 */
function entriesQuery(organizationId: string, index: string, range: Sql, most: number, within?: Sql): Sql {
  const span = andClause(within);
  return {
    sql:
      `SELECT count(*) FROM (SELECT 1 FROM files f INDEXED BY ${index} ` +
      `WHERE ${LIVE} AND ${range.sql}${span.sql} LIMIT ?)`,
    params: [organizationId, ...range.params, ...span.params, Math.floor(most) + 1],
  };
}

/** entriesQuery over testedWalkQuery's range. */
export function walkedRowsQuery(organizationId: string, spec: SearchSpec, most: number, within?: Sql): Sql {
  const { index } = walkOrder(spec)!;
  return entriesQuery(organizationId, index, walkedRange(spec), most, within);
}

/**
 * Candidate rows from the shortest name up (files_live_length_idx), with
 * each one's rowid and its name's length: by relevance, the rows whose name
 * holds every term come first, shortest first, which terms too short for
 * the index cannot ask of it.
 */
export function lengthWalkQuery(organizationId: string, spec: SearchSpec, acl?: Sql, within?: Sql): Sql {
  const ok = allConditions(spec, acl);
  const span = andClause(within);
  return {
    sql:
      `SELECT f.rowid AS r, f.path AS path, f.name AS name, f.type = 'directory' AS dir, (${ok.sql}) AS ok, ` +
      `length(f.name) AS len FROM files f INDEXED BY files_live_length_idx WHERE ${LIVE}${span.sql} ` +
      "ORDER BY length(f.name)",
    params: [...ok.params, organizationId, ...span.params],
  };
}

/**
 * lengthWalkQuery's walk tested in SQL: the rowids and names' lengths of
 * the rows among its first `budget` whose name holds the text (`named`,
 * namesTextCondition) and that pass the other conditions.
 */
export function testedLengthWalkQuery(
  organizationId: string,
  spec: SearchSpec,
  named: Sql,
  budget: number,
  acl?: Sql,
  within?: Sql,
): Sql {
  const ok = allConditions(spec, acl);
  const span = andClause(within);
  return {
    sql:
      `SELECT r, len FROM (SELECT f.rowid AS r, length(f.name) AS len, (${ok.sql}) AND ${named.sql} AS hit ` +
      `FROM files f INDEXED BY files_live_length_idx WHERE ${LIVE}${span.sql} ORDER BY length(f.name) LIMIT ?) WHERE hit`,
    params: [...ok.params, ...named.params, organizationId, ...span.params, Math.floor(budget)],
  };
}

/** entriesQuery over testedLengthWalkQuery's range. */
export const lengthWalkedQuery = (organizationId: string, most: number, within?: Sql): Sql =>
  entriesQuery(organizationId, "files_live_length_idx", { sql: "1", params: [] }, most, within);

/**
 * Rows whose name is `length` characters long, that pass `rows` (a
 * condition: membership of a set of rowids, or the text tested on names,
 * namesTextCondition), `conditions` and `within`, with their names, by
 * NOCASE name from the name index: where rows of one length tie past what
 * a walk by length reads in rowid order (a camera's "DSC_0000.NEF": 465k
 * names of 12 characters, 427k holding "_"), the page's first of that
 * length by name (firstByName). Not ordered by id too: that tie-break reads
 * each entry's row (the first 50 of "d" among names of four letters, 91k
 * names in: 136 against 11 ms).
 */
export function lengthTiesQuery(
  organizationId: string,
  length: number,
  rows: Sql,
  conditions: Sql,
  within?: Sql,
  named?: string,
): Sql {
  const row = andClause(conditions);
  const span = andClause(within);
  // Only the rows named so (case-folded), where given: the ties of a page's last name.
  const only = named === undefined ? [] : [named];
  return {
    sql:
      `SELECT f.rowid, f.name FROM files f INDEXED BY files_live_name_idx WHERE ${LIVE}` +
      `${named === undefined ? "" : " AND f.name = ? COLLATE NOCASE"} AND length(f.name) = ? ` +
      `AND ${rows.sql}${span.sql}${row.sql} ORDER BY f.name COLLATE NOCASE`,
    params: [organizationId, ...only, length, ...rows.params, ...span.params, ...row.params],
  };
}

/**
 * The first `want` rows named `name` (case-folded as NOCASE compares) whose
 * path holds every term of `spec`'s text (containsCondition, as exactly as
 * the index matches: a term without "/" is in a row's path through its
 * name or its folder's path) and that pass `conditions`, in the name
 * order's tie-breaks (exact name, then id), from the name index: the rows
 * tying on a name-ordered set walk's last name.
 */
export function nameTiesQuery(
  organizationId: string,
  spec: SearchSpec,
  name: string,
  conditions: Sql,
  want: number,
): Sql {
  const dir = spec.sortOrder === "desc" ? "DESC" : "ASC";
  const text = textTerms(spec.text, MAX_TERMS).map((t) => containsCondition("f.path", t, lettersOf(spec)));
  const row = andClause(conditions);
  return {
    sql:
      `SELECT f.rowid FROM files f INDEXED BY files_live_name_idx WHERE ${LIVE} AND f.name = ? COLLATE NOCASE` +
      `${text.map((t) => ` AND ${t.sql}`).join("")}${row.sql} ORDER BY f.name ${dir}, f.id ${dir} LIMIT ?`,
    params: [organizationId, name, ...text.flatMap((t) => t.params), ...row.params, want],
  };
}

/**
 * Candidate rows by bucket of size (files_live_size_bucket_idx), in the
 * search's direction, each with its size and bucket; within a bucket in no
 * useful order (the caller sorts each bucket's matches).
 */
export function bucketWalkQuery(organizationId: string, spec: SearchSpec, acl?: Sql, within?: Sql): Sql {
  const ok = allConditions(spec, acl);
  const dir = spec.sortOrder === "desc" ? "DESC" : "ASC";
  // The buckets that can hold sizes within the search's bounds (the rows' own filter is exact).
  const [lowest, highest] = sizeBuckets(spec);
  const span = andClause(within);
  return {
    sql:
      `SELECT f.rowid AS r, f.path AS path, f.name AS name, f.type = 'directory' AS dir, (${ok.sql}) AS ok, ` +
      `f.size AS size, ${SIZE_BUCKET} AS k FROM files f INDEXED BY files_live_size_bucket_idx ` +
      `WHERE ${LIVE} AND ${SIZE_BUCKET} BETWEEN ? AND ?${span.sql} ORDER BY ${SIZE_BUCKET} ${dir}`,
    params: [...ok.params, organizationId, lowest, highest, ...span.params],
  };
}

/**
 * Relevance among rows whose names all hold every term (search.query.ts
 * relevanceOrder without its first key, the same for all of them).
 */
const SHORTEST_FIRST: Sql = { sql: "length(f.name), f.name COLLATE NOCASE, f.id", params: [] };

/**
 * One page of the rows `rowids` in `order` (by relevance every row of the
 * shortest names holding the terms, SHORTEST_FIRST; by size every match of
 * the buckets a bucket walk read, the search's order).
 */
export function rowidsPageQuery(order: Sql, rowids: readonly number[], limit: number, offset: number): Sql {
  return {
    sql: `SELECT f.id AS id FROM json_each(?) j JOIN files f ON f.rowid = j.value ORDER BY ${order.sql} LIMIT ? OFFSET ?`,
    params: [JSON.stringify(rowids), ...order.params, limit, offset],
  };
}

/** When the dense plan is used (search.repo.ts SearchPlanOptions). */
export interface DenseOptions {
  denseFewRows: number;
  denseMinHits: number;
  denseMaxWalk: number;
  denseMinTotal: number;
  denseFolderWalkFirst: number;
  denseShortTermReads: number;
  denseShortTermExpected: number;
  denseSetMax: number;
}

export interface DenseAnswer {
  ids: string[];
  total: number;
  estimated: boolean;
}

type Candidate = [id: string, path: string, name: string, dir: number, ok: number, w: number, size: number];
/** A walk's page: the ids, how many matches it saw, and whether it reached the end of them. */
type WalkPage = { ids: string[]; matched: number; complete: boolean };
/** A set walk's page, with the rowids of every match it saw. */
type SetWalkPage = WalkPage & { rows: number[] };

/**
 * What a set walk is told of the sample's estimate: the matches of the text
 * alone, of the whole search, and the sampled names of the latter (by name
 * and relevance; case-folded).
 */
interface SetEstimate {
  textMatches: number;
  total: number;
  hitNames: readonly string[];
}
/** What a text test reads of a row (at the same places in SampleRow): its path, name and whether a directory. */
type Texted = readonly [unknown, path: string, name: string, dir: number, ...unknown[]];
/** The columns a row's test reads, at the same places in Candidate and BySize rows. */
type Tested = readonly [unknown, path: string, name: string, dir: number, ok: number, ...unknown[]];
type ByLength = [rowid: number, path: string, name: string, dir: number, ok: number, len: number];
type BySize = [
  rowid: number,
  path: string,
  name: string,
  dir: number,
  ok: number,
  size: number,
  bucket: number,
];

/** Names in a walk's order: -1, 0 or 1 as `a` comes before, with or after `b` (case-folded already). */
const inWalkOrder = (a: string, b: string, descending: boolean) =>
  (a < b ? -1 : a > b ? 1 : 0) * (descending ? -1 : 1);

/** `names` case-folded and sorted in a walk's order. */
const walkSorted = (names: readonly string[], descending: boolean): string[] =>
  names.map(nocase).sort((a, b) => inWalkOrder(a, b, descending));

/**
 * The sampled name about `share` of the way into the name order (descending
 * or not): where a walk of that share of the rows ends, near enough (the
 * walk stops there whatever the true share). Undefined when the share is
 * the whole order.
 */
export function nameAt(names: readonly string[], descending: boolean, share: number): string | undefined {
  if (share >= 1 || names.length === 0) return undefined;
  const sorted = walkSorted(names, descending);
  return sorted[Math.min(sorted.length - 1, Math.floor(share * sorted.length))];
}

/**
 * About how many entries of the name order (descending or not) a walk
 * reads to hold a page ending at match `need`, from the sample: its names
 * (`names`, standing for `rows` rows) and those of its matches (`hits`,
 * standing for `total` matches). The page's last match lies that far
 * among the sampled matches (one stands for total / hits), so between two
 * of them in the order: interpolated between their places. Before the
 * first, the place one step before it, as far as the second is after it:
 * matches spread evenly start near the order's start, and matches
 * gathered late (a folder's "DSC_…" photos) just before the first sampled.
 * `rows` when the sample holds too few matches to tell.
 */
export function walkToPage(
  names: readonly string[],
  hits: readonly string[],
  descending: boolean,
  need: number,
  total: number,
  rows: number,
): number {
  const at = (need * hits.length) / Math.max(1, total);
  if (hits.length === 0 || at > hits.length || names.length === 0) return rows;
  const sorted = walkSorted(hits, descending);
  const folded = names.map(nocase);
  const place = (name: string) =>
    folded.filter((n) => inWalkOrder(n, name, descending) <= 0).length / names.length;
  const i = Math.max(1, Math.ceil(at));
  const upper = place(sorted[i - 1]!);
  const lower =
    i > 1 ? place(sorted[i - 2]!) : sorted.length > 1 ? Math.max(0, 2 * upper - place(sorted[1]!)) : 0;
  return (lower + (at - (i - 1)) * (upper - lower)) * rows;
}

/** Sampled matches from which the dense plan trusts where the sample places a page (walkToPage). */
const LATE_PAGE_HITS = 16;
/**
 * How far past a walk's budget the sample must place the page for the walk
 * to be skipped. On the 1M bench library the sample placed `(c`, `#`, `s0`
 * and `copy 12` 16 to 94 times past theirs (each walk gave up), and `07`
 * 6 times past, where the walk answered in ~2 ms: twice the budget sent
 * such pages to the set walk (~40 ms) too.
 */
const LATE_PAGE_PAST = 10;

/**
 * Rows a walk may read when the sample expects `expected`: a few times as
 * many, since matches may fall unevenly in its order (music's "01. …" names
 * first), and at most twice what the plan allows.
 */
const walkBudgetOf = (expected: number, maxWalk: number) =>
  Math.min(2 * maxWalk, Math.max(4 * expected, 1000));

/**
 * Folders whose path holds a term whose children nameBound reads, at most
 * (counted from the FTS index first; ~0.2 µs a child read: "copy", 8.2k
 * folders, 168k children, ~30 ms).
 */
const NAME_BOUND_FOLDERS_MAX = 16_384;

/** Rows whose name holds a term that nameBound reads, at most (~1.5 µs each). */
const NAME_BOUND_OWN_MAX = 32_768;

/**
 * The first (last, `desc`) name in NOCASE order of the organization's live
 * rows matching `expr` in the index and passing `spec`'s filters (their
 * rows are read anyway: a directory's name holding "season" does not bound
 * a search for files).
 */
export function ownNameBoundQuery(
  organizationId: string,
  expr: string,
  spec: SearchSpec,
  desc: boolean,
): Sql {
  const filters = allConditions(spec);
  return {
    sql:
      `SELECT ${desc ? "max" : "min"}(f.name COLLATE NOCASE) FROM files_fts JOIN files f ON f.rowid = files_fts.rowid ` +
      `WHERE files_fts MATCH ? AND ${LIVE} AND ${filters.sql}`,
    params: [expr, organizationId, ...filters.params],
  };
}

/**
 * The first (last, `desc`) name in NOCASE order of the live children of
 * `folders` (a subquery of ids) of `spec`'s type, if it asks for one, from
 * files_children_idx alone (it holds whether each is a directory).
 */
export function childNameBoundQuery(
  organizationId: string,
  folders: Sql,
  spec: SearchSpec,
  desc: boolean,
): Sql {
  const typed = spec.type ? ` AND (c.type = 'directory') = ${spec.type === "directory" ? 1 : 0}` : "";
  return {
    sql:
      `SELECT ${desc ? "max" : "min"}(c.name COLLATE NOCASE) FROM files c INDEXED BY files_children_idx ` +
      `WHERE c.organization_id = ? AND c.parent_id IN (${folders.sql}) AND c.is_deleted = 0${typed}`,
    params: [organizationId, ...folders.params],
  };
}

/** The rowids of the organization's live rows whose path is `path` (the folder's own row). */
export function selfRowidsQuery(organizationId: string, path: string): Sql {
  return {
    sql:
      "SELECT f.rowid FROM files f INDEXED BY files_path_idx " +
      "WHERE f.organization_id = ? AND f.path = ? AND f.is_deleted = 0",
    params: [organizationId, path],
  };
}

/**
 * The rows a path filter keeps, as spans of rowids: its folder's span (its
 * descendants: search.span.ts) and the folder's own rows (`own`), one span
 * with it where they touch, apart where they do not. A scan writes a top
 * folder's row long before its descendants (/Tree/Music: rowid 5, its
 * descendants 349,931 to 523,598); one span over both made the walks pass
 * 350k other rows ("9" under /Tree/Music by relevance 27 -> ~200 ms).
 */
export function pathSpans(descendants: Span, own: readonly number[]): Span[] {
  let spans: Span[] = descendants.rows === 0 ? [] : [descendants];
  for (const rowid of own) {
    const near = spans.find((s) => rowid >= s.lo - 1 && rowid <= s.hi + 1);
    const one = { lo: rowid, hi: rowid, rows: 1 };
    spans = near
      ? spans.map((s) =>
          s === near ? { lo: Math.min(s.lo, rowid), hi: Math.max(s.hi, rowid), rows: s.rows + 1 } : s,
        )
      : [...spans, one];
  }
  return spans.length > 0 ? spans : [descendants];
}

/** The first (`last`: the last) of `names` in NOCASE order. */
export function pickNameQuery(names: readonly string[], last: boolean): Sql {
  return {
    sql: `SELECT value FROM json_each(?) ORDER BY value COLLATE NOCASE ${last ? "DESC" : "ASC"} LIMIT 1`,
    params: [JSON.stringify(names)],
  };
}

/**
 * Rows of a folder's span (search.span.ts) for each row a walk under it may
 * read before it gives up: the subtree plan reads every row of the folder,
 * at about a fifth of a walk's cost a row (files_path_idx in order, against
 * an index of another order read at random).
 */
const SPAN_ROWS_PER_WALKED_ROW = 8;

/**
 * Matches of the text (as the sample expects them) for each row a walk may
 * read before it gives up: the exact plans read every match's row at about
 * the same cost a row, and the set walk builds the set of every match first
 * (~1 µs a member), so a walk that gives up adds at most about a sixteenth
 * (in process at 1M rows: "copy" by date, 176k matches, 145 -> 167 ms when
 * its walk gives up; "x y" by date 348 -> 9 and "final" 43 -> 7 when it
 * does not).
 */
const MATCHES_PER_WALKED_ROW = 16;

/**
 * Rows a walk tested in SQL (testedWalkQuery, ~0.27 µs a row at 1M rows)
 * may read for each match of the text the exact plans would read (~0.8 µs
 * each).
 */
const TESTED_ROWS_PER_MATCH = 3;

/**
 * Rows a walk whose filters SQLite tests (filteredWalkQuery, ~0.4-0.7 µs a
 * row read at random) may read for each match of the text the set walk
 * would build its set of (~0.7 µs a member).
 */
const FILTERED_ROWS_PER_MATCH = 0.5;

/**
 * Rows a walk by name testing each in JavaScript (~1.6 µs a row read and
 * handed over) may read for each match of the text the exact plans would
 * read (~0.85 µs each), where the sample places the page past its budget.
 */
const READ_ROWS_PER_MATCH = 0.25;

/** Rows tying with a set walk's page past it that it reads before giving up (each is sorted with the page). */
const SET_WALK_TIES = 5000;

/**
 * Rows the relevance walk past the names (`shortest`) may read
 * per match of the set walk that answers when it gives up (pastNames): a
 * quarter of that walk's cost. Measured at 1M rows: ~3.3 µs a row read and
 * tested, ~0.35 µs a member of the set built and walked ("photos": 176k
 * matches, 60 ms).
 */
const ROWS_PER_SET_MATCH = 1 / 40;

/**
 * A set's cost a member (SQLite building it from the FTS index, ~0.2-0.6 µs,
 * and the walk's lookup), and a row's a set walk reads and tests in
 * JavaScript (~3 µs), in the same unit: what narrowestTerm weighs.
 */
const SET_MEMBER_COST = 0.3;
const SET_ROW_COST = 3;
/** How many times the rows the sample expects a narrowed set walk reads it may read before it gives up. */
const NARROW_READS_MARGIN = 4;

/**
 * Of a search's terms, each with the rows holding it and the rows of those
 * a set walk over them alone would read for the page, the one whose set
 * and reads cost least (SET_MEMBER_COST, SET_ROW_COST), when that is less
 * than the set of every term; else undefined.
 */
export function narrowestOf(terms: readonly { rows: number; reads: number }[]): number | undefined {
  const whole = terms.reduce((sum, t) => sum + t.rows * SET_MEMBER_COST, 0);
  let best: number | undefined;
  let least = whole;
  for (const [i, t] of terms.entries()) {
    const cost = t.rows * SET_MEMBER_COST + t.reads * SET_ROW_COST;
    if (cost < least) [best, least] = [i, cost];
  }
  return best;
}

/** Names namesWalk may read per match the sample expects (see its caller). */
const NAMES_PER_MATCH = 8;

/** A name as SQLite's NOCASE collation compares it: ASCII letters folded, nothing else. */
const nocase = (name: string) => name.replace(/[A-Z]+/g, (m) => m.toLowerCase());

/**
 * Rowids and names of the organization's live rows in the name index's
 * order (directories' own index for directories only), the index alone
 * read for each name the terms are tested on, the row only for a name that
 * holds them, to test `conditions` (filters, grants): rows equal
 * case-folded come in rowid order (namesWalk sorts its page).
 */
export function namesOnlyQuery(
  organizationId: string,
  spec: SearchSpec,
  bound?: string,
  conditions?: Sql,
): Sql {
  const dir = spec.sortOrder === "desc" ? "DESC" : "ASC";
  const dirs = spec.type === "directory";
  // Names up to `bound` in the walk's order, when given (the walk's most).
  const upTo =
    bound === undefined
      ? []
      : [{ sql: `f.name COLLATE NOCASE ${dir === "DESC" ? ">=" : "<="} ?`, params: [bound] }];
  // Each term tested on the index's name by SQLite itself: only matching names come back.
  const terms = [
    ...upTo,
    ...textTerms(spec.text, MAX_TERMS).map((t) => containsCondition("f.name", t, lettersOf(spec))),
  ];
  const row = andClause(conditions);
  return {
    sql:
      `SELECT f.rowid, f.name FROM files f INDEXED BY ${dirs ? "files_live_dirs_idx" : "files_live_name_idx"} ` +
      `WHERE ${LIVE}${dirs ? " AND f.type = 'directory'" : ""}${terms.map((t) => ` AND ${t.sql}`).join("")}${row.sql} ` +
      `ORDER BY f.name COLLATE NOCASE ${dir}`,
    params: [organizationId, ...terms.flatMap((t) => t.params), ...row.params],
  };
}

/**
 * How many entries of files_live_length_idx a walk from the shortest name
 * passes before it holds `need` of the names sampled as `hits` (among the
 * sampled `names`, standing for `rows` live ones): the entries shorter than
 * the sampled hit that far into them, and half of those of its length (the
 * page may end anywhere in them; the sample cannot tell). All `rows` when
 * the sample holds too few.
 */
export function expectedLengthWalk(
  names: readonly string[],
  hits: readonly string[],
  need: number,
  rows: number,
): number {
  const scale = rows / Math.max(1, names.length);
  const k = Math.max(1, Math.ceil(need / scale));
  if (hits.length < k) return rows;
  const length = hits.map((n) => [...n].length).sort((a, b) => a - b)[k - 1]!;
  const lengths = names.map((n) => [...n].length);
  const shorter = lengths.filter((l) => l < length).length;
  const upTo = lengths.filter((l) => l <= length).length;
  return ((shorter + upTo) / 2) * scale;
}

/**
 * Entries a set walk may pass, as the sample expects, for each row of the
 * set (as it expects too) before the set's rows are read instead: ~0.1 µs
 * an entry passed and tested against the set, ~2 µs a row read and sorted.
 * In process at 1M rows: "ab" by relevance, 16.7k names after ~800k shorter
 * ones, 69 against 33 ms; "the", 16.8k after ~266k, 28 against 34; "東京",
 * whose names come early, 10 against 33. The sample overstated those walks
 * by up to 1.7 times and understated the sets by up to 1.4: hence 30, not 20.
 */
const ENTRIES_PER_SET_ROW = 30;

/**
 * How many times the matches' number of names into the order the sample
 * must place a page of the empty files' bucket for the set of the matches
 * to be walked instead of the names (nameWalkOf): "tar.gz", its page ~200k
 * names in, 6.4x: 64 against 27 ms; "edited", 2.7x, 87 against 38; but
 * "mkv", 2.05x, 29 against 37.
 */
const EMPTY_SET_WALK_PAST = 2.5;

/** The sample's names, and those of its rows whose name holds the text (expectedLengthWalk, tiesByName). */
interface LengthSample {
  names: readonly string[];
  hits: readonly string[];
}

/** Entries of the name index tested (index alone) for the cost of one row read. */
const NAME_ENTRIES_PER_ROW = 8;

/**
 * The share of the text's matches a name walk placed late by the sample
 * may read (nameWalkOf): the exact plans read a row of every match (~0.7 µs
 * each at 1M rows), a walk testing in SQL ~0.6-1.3 µs a row read.
 */
const LATE_WALK_SHARE = 4;

/** A bucket's rows read before one of a single size is walked by name instead (bySize). */
const BUCKET_BEFORE_NAME_WALK = 2048;

/** A sampled row's size bucket and size, and whether it matched. */
type Sized = [bucket: number, size: number, hit: boolean];

/**
 * How many rows bySize is expected to read for a page ending at match
 * `need`, from the sample's rows (standing for `rows` live ones) in bucket
 * order: up to the bucket in which the sample's matches reach the page's
 * share of them, or to a big bucket of one size holding matches (walked by
 * name from there). Only the buckets from `lowest` to `highest` are read
 * (bucketWalkQuery: a minimum size of 1 skips the empty files, nine rows in
 * ten of a library).
 */
export function expectedBucketRows(
  sized: readonly Sized[],
  descending: boolean,
  need: number,
  rows: number,
  lowest = 0,
  highest = Number.MAX_SAFE_INTEGER,
): number {
  const scale = rows / Math.max(1, sized.length);
  const order = sized
    .filter(([bucket]) => bucket >= lowest && bucket <= highest)
    .sort((a, b) => (descending ? b[0] - a[0] : a[0] - b[0]));
  let hits = 0;
  for (let i = 0; i < order.length; ) {
    const bucket = order[i]![0];
    let j = i;
    let bucketHits = 0;
    while (j < order.length && order[j]![0] === bucket) if (order[j++]![2]) bucketHits++;
    if (order[i]![1] < EXACT_BUCKETS_BELOW && bucketHits > 0 && (j - i) * scale > BUCKET_BEFORE_NAME_WALK)
      return i * scale + BUCKET_BEFORE_NAME_WALK;
    hits += bucketHits;
    if (hits * scale >= need) return j * scale;
    i = j;
  }
  return rows;
}

/** A live directory: its rowid, id and path. */
export type Folder = { rowid: number; id: string; path: string };

/** What the dense plan asks of the index beyond its own queries (search.repo.ts keeps the answers). */
export interface DenseIndex {
  /** Whether some folder's path holds an FTS expression. */
  inSomePath: (expr: string) => boolean;
  /** The trigrams a short term begins (search.query.ts Expand). */
  expand: Expand;
  /** The live directories at or under a folder (search.sets.ts foldersUnderQuery); undefined when it cannot tell. */
  foldersUnder: (organizationId: string, path: string) => readonly Folder[] | undefined;
  /** A folder's span of rowids (search.span.ts); undefined when it has none. */
  spanOf: (organizationId: string, path: string) => Span | undefined;
  /**
   * The rows the path filter `path` keeps, as spans of rowids (pathSpans:
   * its folder's span and its own row, whose path may hold every term,
   * "photos" under /Photos), kept until the database changes; undefined
   * without a span.
   */
  pathSpansOf: (organizationId: string, path: string) => Span[] | undefined;
  /**
   * The rows under the folders whose path holds a term, as a condition on
   * an index entry (their rowids within the spans of the few folders whose
   * name holds it); undefined when those folders are many, or a span holds
   * other rows too.
   */
  folderRows: (organizationId: string, term: string) => Sql | undefined;
  /**
   * The name `steps` entries into the organization's live names in NOCASE
   * order (descending: from the end), kept until the database changes;
   * undefined when it has fewer.
   */
  nameAtStep: (organizationId: string, descending: boolean, steps: number) => string | undefined;
  /**
   * The rows of the sample's `part` over rowids 1..maxRowid (samplePart,
   * sampleRowsQuery), kept until the database changes.
   */
  sampleRows: (organizationId: string, maxRowid: number, part: SamplePart) => readonly SampleRow[];
}

/**
 * The dense plan over prepared statements: a function answering one page,
 * or undefined when its sample says the matches are too few (their total is
 * then counted exactly) or too sparse for a short walk.
 */
export function createDensePlan(prepared: (q: Sql) => Statement, options: DenseOptions, index: DenseIndex) {
  const { inSomePath, expand, foldersUnder, spanOf, pathSpansOf, folderRows, nameAtStep, sampleRows } = index;
  const rows = (q: Sql) => prepared(q).raw(true);
  const walkBudget = (expected: number) => walkBudgetOf(expected, options.denseMaxWalk);
  /** A walk's page: its total exact when it reached the end of the matches, else the sample's estimate. */
  const answer = (page: WalkPage, estimate: number): DenseAnswer =>
    page.complete
      ? { ids: page.ids, total: page.matched, estimated: false }
      : { ids: page.ids, total: estimate, estimated: true };

  /**
   * True when a row matches `spec`'s text exactly when its name does: every
   * term without "/" and in no folder's path (so in a path only through the
   * name at its end); a short term as the index's trigrams it begins ("_2",
   * in 277k names and no folder's name: its page by name is 143k names in,
   * read from the name index alone), unless the index declined to expand it.
   */
  const nameDecides = (spec: SearchSpec): boolean =>
    textTerms(spec.text, MAX_TERMS).every((t) => {
      if (t.includes("/")) return false;
      if (!isShortTerm(t)) return !inSomePath(termExpression(t));
      const trigrams = expand(t);
      return trigrams !== undefined && (trigrams.length === 0 || !inSomePath(anyOf(trigrams)));
    });

  /**
   * By name, when names alone decide: walks the name index (names and
   * rowids only, no row read) in the search's direction, its names tested
   * in SQL, reads the row of each name that matches for the search's other
   * conditions, and stops once the page is held and the names equal
   * (case-folded) to the last match's are past; the page is then sorted in
   * SQL (its ties broken as the general plan breaks them). It reads about
   * `entries` names at most, up to the sampled name that far into the order
   * (nameAt; directories only: their own, smaller index, all of it), and
   * answers undefined when those do not hold the page.
   */
  const namesWalk = (
    org: string,
    spec: SearchSpec,
    limit: number,
    offset: number,
    entries: number,
    names: readonly string[],
    acl?: Sql,
  ): WalkPage | undefined => {
    const live = maxRowid();
    const need = offset + limit;
    const bound =
      spec.type === "directory" ? undefined : nameAt(names, spec.sortOrder === "desc", entries / live);
    const q = namesOnlyQuery(org, spec, bound, allConditions(spec, acl));
    const found: number[] = [];
    let last: string | undefined;
    const order = searchOrder(spec);
    for (const [rowid, name] of rows(q).iterate(...q.params) as IterableIterator<[number, string]>) {
      if (found.length >= need && nocase(name) !== last)
        return { ids: pageOf(order, found, limit, offset), matched: found.length, complete: false };
      found.push(rowid);
      last = nocase(name);
    }
    // Stopped at the bound: the page held, its total unknown; or not held, for the exact plans.
    if (bound !== undefined)
      return found.length >= need
        ? { ids: pageOf(order, found, limit, offset), matched: found.length, complete: false }
        : undefined;
    return { ids: pageOf(order, found, limit, offset), matched: found.length, complete: true };
  };
  const maxRowid = () => (prepared(maxRowidQuery).get() as { n: number }).n;

  /**
   * The page from `q`, a walk of an index in the search's order over the
   * rows of a set alone (search.sets.ts: SQLite tests each entry against
   * the set it built, before reading its row; rowid and key, the key a name
   * compared case-folded when `byName`), the search's other conditions
   * tested in the same statement (setWalkQuery's `conditions`), and with
   * `text` (the rows' paths and names, setWalkQuery `texted`) each row
   * tested for the whole text in JavaScript, until the page is held and the
   * rows tying with its last key are read; the page is then sorted in `sort`
   * (the general plan's order). Complete when the walk read every row of
   * the set. Past SET_WALK_TIES rows tying with the page's last key, the
   * first of them come from `ties` (the key and how many), or without it
   * the walk gives up (undefined).
   */
  const setWalk = (
    limit: number,
    offset: number,
    q: Sql,
    byName: boolean,
    sort: Sql,
    text?: { matches: RowMatcher; reads: number },
    ties?: (key: unknown, want: number) => number[],
  ): SetWalkPage | undefined => {
    const need = offset + limit;
    const found: number[] = [];
    let last: unknown;
    let reads = 0;
    /** Where the rows of the last key begin in `found`. */
    let group = 0;
    for (const [rowid, key, path, name, dir] of rows(q).iterate(...q.params) as IterableIterator<
      [number, unknown, string, string, number]
    >) {
      const k = byName ? nocase(key as string) : key;
      if (found.length >= need && k !== last)
        return {
          ids: pageOf(sort, found, limit, offset),
          matched: found.length,
          complete: false,
          rows: found,
        };
      if (text && ++reads > text.reads) return undefined;
      if (text && !text.matches(path, name, dir === 1)) continue;
      if (found.length >= need + SET_WALK_TIES) {
        if (!ties) return undefined;
        // Too many rows tie on the page's last key: its first ones in the sort's order, asked of
        // another index.
        const head = found.slice(0, group);
        const tied = [...head, ...ties(last, need - head.length)];
        return { ids: pageOf(sort, tied, limit, offset), matched: tied.length, complete: false, rows: tied };
      }
      if (k !== last) group = found.length;
      found.push(rowid);
      last = k;
    }
    return { ids: pageOf(sort, found, limit, offset), matched: found.length, complete: true, rows: found };
  };

  /**
   * The set of every match of the search's text (textSet), as a condition
   * for a set walk; undefined without one, past options.denseSetMax matches of
   * the text the sample expects (`estimated`), or under a path filter:
   * testing its rows' paths (files_path_idx, ~0.3 µs a row before any term
   * is tested; a GLOB for accents several times that) cost more than the
   * other plans.
   */
  const matchSet = (org: string, spec: SearchSpec, estimated: number): Sql | undefined => {
    if (spec.path) return undefined;
    // Spans need no set built, however many rows they hold ("photos": 652k rows under /Tree/Photos).
    const spanned = spannedOf(org, spec);
    if (spanned) return spanned;
    if (estimated > options.denseSetMax) return undefined;
    const set = textSet(org, spec.text, splitTerms(spec.text, expand), inSomePath);
    return set && inSet(set);
  };

  /**
   * Under a path filter, the spans of rowids it keeps (DenseIndex.pathSpansOf)
   * as a condition on an entry (rows of other folders within them are left
   * out by the path check). A walk of another order's index passes the
   * entries outside without reading their rows: "mp4" under /Tree/TV Shows
   * by date, whose rows the walk reaches after 880k others.
   */
  const withinSpan = (org: string, spec: SearchSpec): Sql | undefined => {
    const spans = spec.path ? pathSpansOf(org, spec.path) : undefined;
    return spans && spansCondition(spans);
  };

  /**
   * Every match of the search's text as a condition on an entry's rowid,
   * without a set to build (search.sets.ts spannedMatch); undefined where
   * one is needed, and under a path filter.
   */
  const spannedMatches = new WeakMap<SearchSpec, Sql | null>();
  const spannedOf = (org: string, spec: SearchSpec): Sql | undefined => {
    if (spec.path) return undefined;
    // Asked once a search (it asks the index for the folders a term names).
    if (!spannedMatches.has(spec))
      spannedMatches.set(spec, spannedMatch(spec.text, inSomePath, (term) => folderRows(org, term)) ?? null);
    return spannedMatches.get(spec) ?? undefined;
  };

  /**
   * Of a text of several terms, the one whose set alone a set walk builds
   * (its rows read and tested for the others: setWalk's `text`), where the
   * sample says that costs less than the set of every term: "part 1", whose
   * "1" holds 921k rows through its trigrams (~520 ms to build, then
   * intersected with the 255k of "part"). Each term's matches among the
   * sample's rows weigh its set. The rows the walk reads are the term's
   * ahead of the page, where the sample places them in the walk's order
   * (walkToPage over the sampled names or dates of the term's rows and of
   * the search's matches: "mp3 320" by date, whose 320 kbit/s albums a scan
   * reached late); by size, as many as the term's rows per match of the
   * search. Of the terms, the one costing least (narrowestOf); with the rows
   * it may read before it gives up.
   */
  const narrowestTerm = (
    org: string,
    spec: SearchSpec,
    need: number,
    est: SetEstimate,
  ): { term: string; reads: number } | undefined => {
    const terms = textTerms(spec.text, MAX_TERMS);
    if (terms.length < 2 || est.total <= 0 || spannedOf(org, spec)) return undefined;
    const max = maxRowid();
    const each = terms.map((t) => rowMatcher([t]));
    const byDate = spec.sortBy === "created_at" || spec.sortBy === "updated_at";
    // By name the estimate's own sampled names of the matches place the page; by date the text's.
    const all = byDate ? rowMatcher(terms) : undefined;
    const hits = terms.map(() => 0);
    /** Each term's sampled rows' keys in the walk's order, and the text's (dates: ISO strings, ordered as names). */
    const keys: string[][] = terms.map(() => []);
    const textKeys: string[] = [];
    const keyOf = (r: SampleRow) =>
      spec.sortBy === "name" ? r[7] : spec.sortBy === "created_at" ? r[8] : r[9];
    for (const part of ["first", "rest"] as const)
      for (const r of sampleRows(org, max, part)) {
        for (let i = 0; i < each.length; i++)
          if (each[i]!(r[1], r[2], r[3] === 1)) {
            hits[i]!++;
            keys[i]!.push(keyOf(r));
          }
        if (all?.(r[1], r[2], r[3] === 1)) textKeys.push(keyOf(r));
      }
    const scale = sampleScale(max);
    const desc = spec.sortOrder === "desc";
    const candidates = hits.map((h, i) => {
      const rows = h * scale;
      // By name, the sampled matches' names with the filters applied; by date, the text's matches
      // (the filters taken as spread evenly over them); by size, all of them spread evenly.
      const reads =
        spec.sortBy === "name"
          ? walkToPage(keys[i]!, est.hitNames, desc, need, est.total, rows)
          : byDate
            ? walkToPage(keys[i]!, textKeys, desc, need, est.total, rows)
            : (need * rows) / est.total;
      return { rows, reads };
    });
    const best = narrowestOf(candidates);
    return best === undefined
      ? undefined
      : { term: terms[best]!, reads: NARROW_READS_MARGIN * candidates[best]!.reads };
  };

  /**
   * By name or date, the set walk over every match of the search's text
   * (matchSet), when it has one; first, where one term's rows are far fewer
   * than the others' (narrowestTerm), over that term's set alone, each row
   * read tested for the whole text, until it has read more than expected.
   */
  const setPage = (org: string, spec: SearchSpec, est: SetEstimate, acl?: Sql) => {
    const order = setOrder(spec);
    const match = order && matchSet(org, spec, est.textMatches);
    // By name, a page ending among thousands of rows of one name ("main.css" across a code
    // checkout's packages: 18k) reads that name's first rows from the name index, each row's path
    // tested for the text in SQL (the set is not built again: ~96 ms for "ha"), where else the walk
    // gives up past SET_WALK_TIES of them.
    const tiesOf = (name: unknown, want: number) => {
      const q = nameTiesQuery(org, spec, String(name), allConditions(spec, acl), want);
      return prepared(q)
        .pluck()
        .all(...q.params) as number[];
    };
    const over = (set: Sql, limit: number, offset: number, text?: { matches: RowMatcher; reads: number }) =>
      setWalk(
        limit,
        offset,
        setWalkQuery(org, order!, set, allConditions(spec, acl), text !== undefined),
        spec.sortBy === "name",
        searchOrder(spec),
        text,
        spec.sortBy === "name" && !text ? tiesOf : undefined,
      );
    return (
      match &&
      ((limit: number, offset: number) => {
        const narrow = narrowestTerm(org, spec, offset + limit, est);
        const set = narrow && textSet(org, narrow.term, splitTerms(narrow.term, expand), inSomePath);
        const matches = set && rowMatcher(textTerms(spec.text, MAX_TERMS));
        const page = set && over(inSet(set), limit, offset, { matches: matches!, reads: narrow!.reads });
        return page ?? over(match, limit, offset);
      })
    );
  };

  /**
   * By name, files too, under a path filter or with a term some folders'
   * paths hold: the walk of the name index over the rows whose folder and
   * name together hold every term (search.sets.ts folderWalkQuery), each
   * entry's folder tested in the index against the folders' ids (folderMatch). Under a
   * path filter the folders are its directories, each term's those whose
   * path holds it (rowMatcher, as the sample tests rows). Undefined when a
   * term has "/" (it may span a folder and a name), or the folders cannot
   * be told (a path too short for the index, or not a directory's).
   * Without a path filter a term too short for the index declines, unless
   * `names.short` (the bounded walk's, a number of rows): the other terms
   * are then tested on the entries, and the rows passing them read and
   * tested for the whole text, giving up past that many.
   */
  const folderPage = (
    org: string,
    spec: SearchSpec,
    limit: number,
    offset: number,
    acl?: Sql,
    names: { from?: string; upTo?: string; after?: string; short?: number } = {},
  ): SetWalkPage | undefined => {
    const terms = textTerms(spec.text, MAX_TERMS);
    if (spec.type === "directory" || terms.some((t) => t.includes("/"))) return undefined;
    let match: Sql;
    let text: { matches: RowMatcher; reads: number } | undefined;
    if (spec.path) {
      const dirs = foldersUnder(org, spec.path);
      const self = dirs?.find((d) => d.path === spec.path);
      if (!dirs || !self) return undefined;
      // A term the folder's own path holds, every row under it holds too (its folder's path does).
      const perTerm = terms.flatMap((term) => {
        const holds = rowMatcher([term]);
        if (holds(self.path, "", true)) return [];
        return [{ term, folders: idList(dirs.filter((d) => holds(d.path, "", true)).map((d) => d.id)) }];
      });
      const selfMatches = perTerm.length === 0;
      // The rows under it: their rowids, where a scan wrote them in one run and nothing else is
      // there (tested on the entry), else their folder among its thousands of directories (a list
      // SQLite builds for every walk: ~8k ids, several milliseconds, under /Photos at 1M rows).
      match = folderMatch(perTerm, lettersOf(spec), {
        rows: pureSpan(spanOf(org, spec.path)) ?? inFolders(idList(dirs.map((d) => d.id))),
        self: selfMatches ? self.rowid : undefined,
      });
    } else {
      const perTerm = folderTerms(spec.text, inSomePath, names.short !== undefined);
      if (!perTerm) return undefined;
      // A term left out ("12" of "copy 12"), tested on the rows the others keep.
      if (perTerm.length < terms.length) text = { matches: rowMatcher(terms), reads: names.short! };
      // A word of a few folders' names ("photos"): the rows under them by rowid, tested on any
      // index's entry, where their ids (~8k folders under /Photos) are read for every walk, and
      // an entry of an index without the folder (by date) has its row read to test it.
      match = folderMatch(
        perTerm.map((t) => {
          const rows = t.folders && folderRows(org, t.term);
          return rows ? { term: t.term, rows } : t;
        }),
        lettersOf(spec),
      );
    }
    // From the first name a match can have (nameBound), and up to a name, where the caller says.
    const [after, before] = spec.sortOrder === "desc" ? ["<=", ">="] : [">=", "<="];
    const conds: Sql[] = [match];
    if (names.from !== undefined)
      conds.push({ sql: `f.name COLLATE NOCASE ${after} ?`, params: [names.from] });
    if (names.upTo !== undefined)
      conds.push({ sql: `f.name COLLATE NOCASE ${before} ?`, params: [names.upTo] });
    // Strictly past a name (the rows of that name were a walk's before this one).
    if (names.after !== undefined)
      conds.push({ sql: `f.name COLLATE NOCASE ${after.slice(0, 1)} ?`, params: [names.after] });
    const walked: Sql = {
      sql: conds.map((c) => c.sql).join(" AND "),
      params: conds.flatMap((c) => c.params),
    };
    return setWalk(
      limit,
      offset,
      setWalkQuery(org, setOrder(spec)!, walked, allConditions(spec, acl), text !== undefined),
      true,
      searchOrder(spec),
      text,
    );
  };

  /**
   * By name, the first name (the last, descending) any match of `spec`'s
   * text can have, as SQLite's NOCASE orders names: a row holds a term in
   * its path through its own name, or as a child of a folder whose path
   * holds it. So for each term, the first of the names holding it (read
   * from their rows, when at most NAME_BOUND_OWN_MAX hold it) and of the
   * children of those folders (files_children_idx, whose entries hold
   * their names; of at most NAME_BOUND_FOLDERS_MAX); of the terms, the last.
   * Undefined when no term's can be told. A walk from there skips every
   * name before it: "copy", a word of 8k folders' names (168k children),
   * has none among ~175k music tracks named "01. …".
   */
  const nameBound = (org: string, spec: SearchSpec, past?: string): string | undefined => {
    // A match holds every term: the first name the longer ones allow bounds it too.
    const terms = folderTerms(spec.text, inSomePath, true);
    if (!terms) return undefined;
    const desc = spec.sortOrder === "desc";
    /** Whether `name` lies strictly further in the walk's order than `past` (always, without it). */
    const further = (name: string) =>
      past === undefined || (name !== past && pickName([name, past], !desc) === name);
    const bounds: string[] = [];
    for (const { term, folders } of terms) {
      const firsts: string[] = [];
      if (folders) {
        // The folders counted first, from the FTS index alone: past the bound the term is left out.
        if (indexCount(`path : (${termExpression(term)})`, NAME_BOUND_FOLDERS_MAX) > NAME_BOUND_FOLDERS_MAX)
          continue;
        const child = value<string | null>(childNameBoundQuery(org, folders, spec, desc));
        // Their children come before `past`: this term cannot move the walk on (its own names
        // are not counted: ~3 ms for a common word's 32k).
        if (child !== null && !further(child)) continue;
        if (child !== null) firsts.push(child);
      }
      const expr = `name : (${termExpression(term)})`;
      if (indexCount(expr, NAME_BOUND_OWN_MAX) > NAME_BOUND_OWN_MAX) continue;
      const name = value<string | null>(ownNameBoundQuery(org, expr, spec, desc));
      if (name !== null) firsts.push(name);
      // A term nothing holds: no match at all, and no bound needed.
      if (firsts.length === 0) return undefined;
      // The term's first name (its last, descending); of the terms, the one furthest in.
      bounds.push(pickName(firsts, desc));
    }
    return bounds.length === 0 ? undefined : pickName(bounds, !desc);
  };

  /**
   * For a name-ordered text with terms too short for the index beside
   * longer ones ("copy 12"), how many rows the folder walk may read to test
   * them (folderPage's `names.short`: options.denseShortTermReads), where
   * the sample places at most options.denseShortTermExpected rows holding
   * the longer terms before the page in name order (its rows holding them,
   * up to the name of its match that stands for the page's last); else
   * undefined (no folder walk: "season s0", whose first sampled match comes
   * after ~10k of the rows under folders named "season", the walk read 291
   * of them in 51 ms before the set walk's 78). Undefined without short
   * terms, or without a folder whose path holds a longer one.
   */
  const shortTermReads = (
    org: string,
    spec: SearchSpec,
    need: number,
    est: { total: number; hitNames: readonly string[] },
    acl?: Sql,
  ): number | undefined => {
    const terms = textTerms(spec.text, MAX_TERMS);
    const long = terms.filter((t) => !isShortTerm(t));
    if (long.length === 0 || long.length === terms.length || est.hitNames.length === 0) return undefined;
    // Without a folder's path holding one, the walk tests every name it passes (~0.25 µs each)
    // where the set walk probes the set of its matches ("edited 1": 76 against 36 ms).
    if (!long.some((t) => inSomePath(termExpression(t)))) return undefined;
    const holds = rowMatcher(long);
    const longEst = estimate(
      org,
      { ...spec, text: long.join(" ") },
      (c) => holds(c[1], c[2], c[3] === 1),
      acl,
    );
    if (!longEst) return undefined;
    const desc = spec.sortOrder === "desc";
    const hits = walkSorted(est.hitNames, desc);
    const at = Math.ceil((need * hits.length) / Math.max(1, est.total));
    const last = hits[Math.min(hits.length - 1, Math.max(0, at - 1))]!;
    const before = longEst.hitNames.filter((n) => inWalkOrder(nocase(n), last, desc) <= 0).length;
    const reads = (before * longEst.total) / Math.max(1, longEst.hitNames.length);
    return reads <= options.denseShortTermExpected ? options.denseShortTermReads : undefined;
  };

  /**
   * The folder walk (folderPage) by name, first over the first
   * options.denseFolderWalkFirst names of the order: the sample cannot tell
   * where the page lies ("music" names folders spread over the order, and
   * its sampled hits are their tracks "01. …"). When no match is among them,
   * on from the first name a match can have (nameBound: ~0.2 µs for each
   * of the folders' children, against ~0.4 µs a name passed): "copy" by name
   * 113 -> ~50 ms. When some are (a deep page), on from the last of them.
   */
  const boundedFolderPage = (
    org: string,
    spec: SearchSpec,
    limit: number,
    offset: number,
    acl?: Sql,
    short?: number,
  ): SetWalkPage | undefined => {
    // Only where an entry is tested against a list of folders (~1 µs); against the spans of a few
    // folders ("photos": ~0.1 µs) the whole walk costs less than the bound.
    const listed = folderTerms(spec.text, inSomePath, true)?.some(
      (t) => t.folders && !folderRows(org, t.term),
    );
    const upTo = listed
      ? nameAtStep(org, spec.sortOrder === "desc", options.denseFolderWalkFirst)
      : undefined;
    if (upTo === undefined) return folderPage(org, spec, limit, offset, acl, { short });
    const first = folderPage(org, spec, limit, offset, acl, { upTo, short });
    if (!first || first.ids.length === limit) return first;
    // The walk goes on past those names: from the bound where no match was among them and the
    // bound lies further; the page then sorted from both walks' matches (a deep page: some were).
    const bound = first.matched === 0 ? nameBound(org, spec, upTo) : undefined;
    const further =
      bound !== undefined && bound !== upTo && pickName([bound, upTo], spec.sortOrder !== "desc") === bound;
    const want = offset + limit - first.matched;
    const rest = folderPage(org, spec, want, 0, acl, {
      ...(further ? { from: bound } : { after: upTo }),
      short,
    });
    if (!rest) return undefined;
    const rows = [...first.rows, ...rest.rows];
    return {
      ids: pageOf(searchOrder(spec), rows, limit, offset),
      matched: first.matched + rest.matched,
      complete: rest.complete,
      rows,
    };
  };

  /** The first of `names` in NOCASE order (`last`: the last), as SQLite compares them. */
  const pickName = (names: readonly string[], last: boolean): string =>
    value<string>(pickNameQuery(names, last));

  /** The single value `q` selects. */
  const value = <T>(q: Sql): T =>
    prepared(q)
      .pluck()
      .get(...q.params) as T;

  /** The FTS index's matches of `expr`, counted up to `bound` + 1. */
  const indexCount = (expr: string, bound: number): number =>
    value<number>(countUpTo({ sql: "FROM files_fts WHERE files_fts MATCH ?", params: [expr] }, bound));

  /**
   * The rows of the sample's `part` (kept) with their flags for `spec`
   * (sampleFlagsQuery), joined by rowid: outside a read transaction a write
   * may land between the two statements, and a kept row without flags then
   * counts as neither passing nor walked (an estimate off by that row).
   */
  const sampled = (org: string, spec: SearchSpec, max: number, part: SamplePart, acl?: Sql) => {
    const kept = sampleRows(org, max, part);
    const starts = samplePart(max, part);
    const q = sampleFlagsQuery(org, spec, starts, acl);
    if (!q) return { rows: kept, ok: undefined, walked: sampleWalked(spec, kept) };
    const flags = new Map<number, [number, number, number]>();
    for (const f of rows(q).all(...q.params) as [number, number, number][]) flags.set(f[0], f);
    return {
      rows: kept,
      ok: kept.map((r) => flags.get(r[4])?.[1] ?? 0),
      walked: kept.map((r) => flags.get(r[4])?.[2] ?? 0),
    };
  };

  /**
   * Matches in the sample (rows passing `test`, their text matching and
   * their other conditions too), rows the sample tested, the estimated
   * total, and the estimated matches of the text alone (`textMatches`: a
   * set of matches holds them all, whatever the other conditions). Its
   * names (`names`, `hitNames`) come case-folded (nocase).
   */
  const estimate = (org: string, spec: SearchSpec, text: (c: Texted) => boolean, acl?: Sql) => {
    const max = maxRowid();
    const count = {
      hits: 0,
      textHits: 0,
      walked: 0,
      walkedHits: 0,
      sized: [] as Sized[],
      names: [] as string[],
      hitNames: [] as string[],
      dates: [] as string[],
      hitDates: [] as string[],
    };
    const bySize = spec.sortBy === "size";
    const named = spec.sortBy !== "updated_at" && spec.sortBy !== "created_at";
    const hitNamed = spec.sortBy === "name" || spec.sortBy === "relevance";
    const date = spec.sortBy === "created_at" ? 8 : spec.sortBy === "updated_at" ? 9 : undefined;
    const read = (part: SamplePart) => {
      const { rows, ok, walked } = sampled(org, spec, max, part, acl);
      for (let i = 0; i < rows.length; i++) {
        const c = rows[i]!;
        const inText = text(c);
        const hit = inText && (ok === undefined || ok[i] === 1);
        if (inText) count.textHits++;
        if (hit) count.hits++;
        if (bySize) count.sized.push([c[5], c[6], hit]);
        if (named) count.names.push(c[7]);
        if (hitNamed && hit) count.hitNames.push(c[7]);
        if (date !== undefined) count.dates.push(c[date]!);
        if (date !== undefined && hit) count.hitDates.push(c[date]!);
        if (walked !== undefined && walked[i] !== 1) continue;
        count.walked++;
        if (hit) count.walkedHits++;
      }
    };
    // A quarter of the windows first: no match there, and the search is sparse enough for the
    // exact plans (sparse words then skip three quarters of the sample).
    read("first");
    if (count.hits === 0) return undefined;
    read("rest");
    const scale = sampleScale(max);
    return {
      ...count,
      total: Math.round(count.hits * scale),
      textMatches: Math.round(count.textHits * scale),
    };
  };

  /** The page walking the order's index, or undefined past the walk's budget. */
  const walk = (
    org: string,
    spec: SearchSpec,
    limit: number,
    offset: number,
    budget: number,
    test: (c: Tested) => boolean,
    acl?: Sql,
  ): WalkPage | undefined => {
    const text = pathTextCondition(spec.text);
    if (text) return testedWalk(org, spec, limit, offset, budget, text, acl);
    const ids: string[] = [];
    const within = withinSpan(org, spec);
    // With filters or grants, the rows failing them are passed in SQL (~0.4 µs a row, against ~1.2
    // handed to JavaScript): "e" between 100 and 400 bytes, where a music library's empty "01 …"
    // tracks come first by name. The budget is then the subquery's limit.
    const filtered = allConditions(spec, acl).sql !== "1";
    const q = filtered
      ? filteredWalkQuery(org, spec, budget, acl, within)
      : walkQuery(org, spec, acl, within);
    let walked = 0;
    let matched = 0;
    for (const c of rows(q).iterate(...q.params) as IterableIterator<Candidate>) {
      if (++walked > budget) return undefined;
      if (!test(c)) continue;
      if (matched++ >= offset) ids.push(c[0]);
      if (ids.length === limit) return { ids, matched, complete: false };
    }
    if (filtered && value<number>(walkedRowsQuery(org, spec, budget, within)) > budget) return undefined;
    return { ids, matched, complete: true };
  };

  /**
   * walk, its rows tested in SQL (testedWalkQuery), for text SQLite tests
   * as the search does (pathTextCondition): "(" by date, whose matches
   * begin after the 350k rows of a TV library scanned first, 300 -> 90 ms
   * to read them. Fewer matches than the page: the whole order read within
   * the budget (counted from the index), then every match counted; else
   * undefined, the walk given up.
   */
  const testedWalk = (
    org: string,
    spec: SearchSpec,
    limit: number,
    offset: number,
    budget: number,
    text: Sql,
    acl?: Sql,
  ): WalkPage | undefined => {
    const within = withinSpan(org, spec);
    const q = testedWalkQuery(org, spec, text, budget, limit, offset, acl, within);
    const found = prepared(q)
      .pluck()
      .all(...q.params) as number[];
    const ids = pageOf(searchOrder(spec), found, limit, 0);
    if (found.length === limit) return { ids, matched: offset + limit, complete: false };
    if (value<number>(walkedRowsQuery(org, spec, budget, within)) > budget) return undefined;
    const matched =
      found.length > 0
        ? offset + found.length
        : (
            prepared(q)
              .pluck()
              .all(...q.params.slice(0, -2), Number.MAX_SAFE_INTEGER, 0) as number[]
          ).length;
    return { ids, matched, complete: true };
  };

  /**
   * By relevance: the rowids of the first `want` rows passing `test`, read
   * from the shortest names up until the names of one length are done with
   * enough of them (or the rows run out: fewer then); undefined past the
   * walk's budget. `named`: `test` as a condition SQL tests instead
   * (testedShortest).
   */
  const shortest = (
    org: string,
    spec: SearchSpec,
    want: number,
    budget: number,
    test: (c: ByLength) => boolean,
    acl?: Sql,
    named?: { test: Sql; sample: LengthSample },
  ): number[] | undefined => {
    if (named) return testedShortest(org, spec, want, budget, named.test, named.sample, acl);
    const q = lengthWalkQuery(org, spec, acl, withinSpan(org, spec));
    const found: number[] = [];
    let walked = 0;
    let len = -1;
    for (const c of rows(q).iterate(...q.params) as IterableIterator<ByLength>) {
      if (c[5] !== len) {
        if (found.length >= want) return found;
        len = c[5];
      }
      if (++walked > budget) return undefined;
      if (test(c)) found.push(c[0]);
    }
    return found;
  };

  /**
   * The rowids of the first `want` rows of `q(undefined)` (rowids and names
   * in NOCASE name order: lengthTiesQuery), and every row whose name equals
   * the last one's case-folded (`q(name)`: its ties, asked of the index, for
   * the next match after them may be far: "dist" and then "zod0"): the page
   * is then sorted with its ties broken.
   */
  const firstByName = (q: (named?: string) => Sql, want: number): number[] => {
    if (want <= 0) return [];
    const first = q();
    const out: [number, string][] = [];
    for (const r of rows(first).iterate(...first.params) as IterableIterator<[number, string]>) {
      out.push(r);
      if (out.length >= want) break;
    }
    if (out.length < want) return out.map(([rowid]) => rowid);
    const last = nocase(out.at(-1)![1]);
    const tied = q(last);
    const ties = rows(tied).all(...tied.params) as [number, string][];
    return [...out.filter(([, name]) => nocase(name) !== last), ...ties].map(([rowid]) => rowid);
  };

  /**
   * Whether the first `want` rows of names `length` characters long holding
   * the text (`sample.hits` its sampled ones) are better read from the name
   * index, testing each name it passes (~0.1 µs), than by reading the rest
   * of that length's rows (~0.8 µs each), as far as the sample places them.
   */
  const tiesByName = (sample: LengthSample, length: number, want: number): boolean => {
    const ofLength = (n: string) => [...n].length === length;
    const hits = sample.hits.filter(ofLength);
    const scale = maxRowid() / Math.max(1, sample.names.length);
    const place = walkToPage(sample.names, hits, false, want, hits.length * scale, maxRowid());
    return place < NAME_ENTRIES_PER_ROW * sample.names.filter(ofLength).length * scale;
  };

  /**
   * shortest over the rows whose name holds the text, tested in SQL
   * (testedLengthWalkQuery): "(" by relevance, whose shortest names holding
   * it are ~69k rows in, ~90 -> ~45 ms. Past the budget (counted from the
   * index when the walk ends short of the page's last length), undefined.
   */
  const testedShortest = (
    org: string,
    spec: SearchSpec,
    want: number,
    budget: number,
    named: Sql,
    sample: LengthSample,
    acl?: Sql,
  ): number[] | undefined => {
    const within = withinSpan(org, spec);
    const q = testedLengthWalkQuery(org, spec, named, budget, acl, within);
    const found: number[] = [];
    let len = -1;
    let before = 0;
    let readOn = false;
    for (const [rowid, length] of rows(q).iterate(...q.params) as IterableIterator<[number, number]>) {
      if (length !== len) {
        if (found.length >= want) return found;
        len = length;
        before = found.length;
        readOn = false;
      }
      found.push(rowid);
      // The page ends among rows of one length tying past what is worth reading in rowid order:
      // its rest is the first of that length by name, from the name index, where the sample places
      // it few enough names in ("c": every name of three letters holding it is "src", 80% of the
      // name index in, where the rest of the length is 18k rows: 12 against 92 ms).
      if (found.length >= want + SET_WALK_TIES && !readOn) {
        readOn = !tiesByName(sample, len, want - before);
        if (readOn) continue;
        const conditions = allConditions(spec, acl);
        const ties = firstByName(
          (only) => lengthTiesQuery(org, len, named, conditions, within, only),
          want - before,
        );
        return [...found.slice(0, before), ...ties];
      }
    }
    return value<number>(lengthWalkedQuery(org, budget, within)) > budget ? undefined : found;
  };

  /**
   * By relevance, the matches whose names do not hold every term (`named`
   * are those that do) among the first `need` matches from the shortest
   * name up: the walk of files_live_length_idx over the set of every match
   * (matchSet; undefined without one).
   */
  const pastNames = (
    org: string,
    spec: SearchSpec,
    need: number,
    named: ReadonlySet<number>,
    estimated: number,
    acl?: Sql,
  ): number[] | undefined => {
    const match = matchSet(org, spec, estimated);
    const page =
      match &&
      setWalk(
        need,
        0,
        setWalkQuery(org, setOrder(spec)!, match, allConditions(spec, acl)),
        false,
        SHORTEST_FIRST,
      );
    return page?.rows.filter((r) => !named.has(r));
  };

  /**
   * The rows of a name set (nameSet) in the search's order: read from the
   * set when it holds at most options.denseFewRows of them (few names hold
   * the terms: "photos", the name of folders) or when `walkLonger` (the
   * sample says the walk would cost more), else the walk of the order's
   * index testing each entry against the set.
   */
  const nameSetQuery = (org: string, spec: SearchSpec, set: Sql, walkLonger: boolean, acl?: Sql): Sql => {
    const order = setOrder(spec)!;
    const conditions = allConditions(spec, acl);
    if (walkLonger) return setRowsQuery(org, order, set, conditions);
    const count = countUpTo({ sql: `FROM (${set.sql})`, params: set.params }, options.denseFewRows);
    const few = (prepared(count).get(...count.params) as { n: number }).n <= options.denseFewRows;
    return few ? setRowsQuery(org, order, set, conditions) : setWalkQuery(org, order, inSet(set), conditions);
  };

  /** The page `offset`, `limit` of the rows `rowids`, in `order`. */
  const pageOf = (order: Sql, rowids: readonly number[], limit: number, offset: number): string[] => {
    if (rowids.length === 0 || limit === 0) return [];
    const q = rowidsPageQuery(order, rowids, limit, offset);
    return (prepared(q).all(...q.params) as { id: string }[]).map((r) => r.id);
  };

  /**
   * The first `limit` matches of `spec` by name (a size's rows, for bySize),
   * walking the name index without reading the rows it passes where it can:
   * testing the names when they alone decide (namesWalk, as far as
   * NAMES_PER_MATCH names for each of the `matches` the sample expects,
   * `names` its names), else each entry's folder (folderPage); else reading
   * every row passed, up to `budget`.
   */
  const nameWalkOf = (
    org: string,
    spec: SearchSpec,
    limit: number,
    budget: number,
    test: (c: Tested) => boolean,
    sample: { names: readonly string[]; set: SetEstimate },
    acl?: Sql,
  ): WalkPage | undefined => {
    /** Entries of the name order before the page's last match, as the sample places it (walkToPage). */
    const placed = () =>
      walkToPage(
        sample.names,
        sample.set.hitNames,
        spec.sortOrder === "desc",
        limit,
        sample.set.total,
        maxRowid(),
      );
    if (!nameDecides(spec)) {
      // Where the sample places the page later than the budget reaches (the page's matches begin
      // late in name order: "_" among the empty rows, ~61k names in, past the folders and files whose
      // names begin with digits), as far as it places it, twice over, up to a share of the matches.
      const late = sample.set.hitNames.length >= LATE_PAGE_HITS ? placed() : 0;
      // Placed past that share, the budget alone ("_2" among the empty rows: ~160k names in, 190 ms
      // read to give up; but the sample misplaces some pages: "07", placed 6 times past, is ~2 ms in).
      const most = sample.set.textMatches / LATE_WALK_SHARE;
      const reach = late > most ? budget : Math.max(budget, Math.min(2 * late, most));
      return (
        folderPage(org, spec, limit, 0, acl) ??
        walk(org, spec, limit, 0, reach, test, acl) ??
        setPage(org, spec, sample.set, acl)?.(limit, 0)
      );
    }
    // As by name (the dense plan's name branch), where the sample places the page more names in
    // than EMPTY_SET_WALK_PAST times the matches, their set is walked instead, unless the walk
    // passes more entries than the exact plans read rows for ("s12", ~57 entries a match).
    const place = placed();
    const viaSet =
      place > EMPTY_SET_WALK_PAST * sample.set.total && place <= ENTRIES_PER_SET_ROW * sample.set.textMatches
        ? setPage(org, spec, sample.set, acl)
        : undefined;
    return (
      viaSet?.(limit, 0) ??
      namesWalk(org, spec, limit, 0, NAMES_PER_MATCH * sample.set.total, sample.names, acl)
    );
  };

  /**
   * By size: reads files_live_size_bucket_idx a bucket at a time in the
   * sort's direction, keeping each bucket's matches, until the buckets read
   * hold the page; the page is then sorted from them. A bucket of a single
   * size (below EXACT_BUCKETS_BELOW) with more than BUCKET_BEFORE_NAME_WALK
   * rows (the empty files of a library of mostly empty ones: every ordering
   * tie) is walked by name instead, when the sample saw matches of that
   * size: its rows' order is their names'. Undefined past `budget` rows read,
   * or when that name walk gives up.
   */
  const bySize = (
    org: string,
    spec: SearchSpec,
    limit: number,
    offset: number,
    budget: number,
    test: (c: Tested) => boolean,
    sized: readonly Sized[],
    names: readonly string[],
    textMatches: number,
    acl?: Sql,
  ): WalkPage | undefined => {
    const need = offset + limit;
    const order = searchOrder(spec);
    const q = bucketWalkQuery(org, spec, acl, withinSpan(org, spec));
    const done: number[] = [];
    let bucket: number[] = [];
    let at: number | undefined;
    let inBucket = 0;
    let readOn = false;
    let walked = 0;
    for (const c of rows(q).iterate(...q.params) as IterableIterator<BySize>) {
      if (c[6] !== at) {
        done.push(...bucket);
        bucket = [];
        if (done.length >= need)
          return { ids: pageOf(order, done, limit, offset), matched: done.length, complete: false };
        at = c[6];
        inBucket = 0;
        readOn = false;
      }
      if (++walked > budget) return undefined;
      const size = c[5];
      if (++inBucket > BUCKET_BEFORE_NAME_WALK && size < EXACT_BUCKETS_BELOW && !readOn) {
        const seenHits = sized.filter(([, s, hit]) => hit && s === size).length;
        if (seenHits > 0) {
          // Every row of this size ties on size: the rest of the page is its first matches by name.
          const want = need - done.length;
          const sizeOnly = { ...spec, sortBy: "name" as const, minSize: size, maxSize: size };
          const matches = (seenHits * maxRowid()) / sized.length;
          // Past the walk's budget (the matches begin late in name order: "(c", the children of
          // folders named "… (copy 12)", after a music library's "01. …" tracks), the set walk.
          const hitNames = names.filter((_, i) => sized[i]![2] && sized[i]![1] === size);
          const named = nameWalkOf(
            org,
            sizeOnly,
            want,
            walkBudget((want * sized.length) / seenHits),
            test,
            { names, set: { textMatches, total: matches, hitNames } },
            acl,
          );
          if (named && named.ids.length === want) {
            const head = pageOf(order, done, Math.min(limit, Math.max(0, done.length - offset)), offset);
            const tail = named.ids.slice(Math.max(0, offset - done.length));
            return { ids: [...head, ...tail].slice(0, limit), matched: need, complete: false };
          }
        }
        // No name walk for this bucket (none of its size matched in the sample, or the walk gave up):
        // its rows are read on, as any bucket's, unless the sample says they reach past the budget
        // ("_2" smallest first: 690k empty rows, 143k of them read to give up, 135 ms).
        const rowsOfSize = (sized.filter(([, s]) => s === size).length * maxRowid()) / sized.length;
        if (walked + rowsOfSize - inBucket > budget) return undefined;
        readOn = true;
      }
      if (test(c)) bucket.push(c[0]);
    }
    done.push(...bucket);
    return { ids: pageOf(order, done, limit, offset), matched: done.length, complete: true };
  };

  return (
    org: string,
    spec: SearchSpec,
    limit: number,
    offset: number,
    acl?: Sql,
  ): DenseAnswer | undefined => {
    const matches = rowMatcher(textTerms(spec.text, MAX_TERMS));
    const inText = (c: Texted) => matches(c[1], c[2], c[3] === 1);
    const test = (c: Tested) => c[4] === 1 && inText(c);
    const est = estimate(org, spec, inText, acl);
    if (!est || est.hits < options.denseMinHits || est.total <= options.denseMinTotal) return undefined;
    const total = Math.max(est.total, offset + limit);
    // The exact plans read the row of every match of the text (or of every live row, for terms the
    // index answers none of): "1 2 3" at offset 2000, 659k matches, ~2.4 s at 1M rows; the set walk
    // builds the set of every match first. A walk reading rows may go as far as a share of those
    // before it gives up to them, unless the set walk needs no set ("photos": the rowids under the
    // folders named so, 13 ms, where reading 11k rows first made it 29).
    // Not under a range (a folder, dates, sizes): the subtree plan may read its rows for less. Under
    // a folder with a span, though, the walks read the span's rows alone (withinSpan), and the
    // subtree plan reads every one of them: a walk may read as many as a share of them ("mp4" under
    // /Tree/TV Shows by date: 8.5k rows, its 8k folders updated last, 22 ms; the subtree plan 115).
    const ranged =
      spec.path !== undefined ||
      spec.startDate !== undefined ||
      spec.endDate !== undefined ||
      spec.minSize !== undefined ||
      spec.maxSize !== undefined;
    const span = spec.path ? spanOf(org, spec.path) : undefined;
    const spanWalk = span ? span.rows / SPAN_ROWS_PER_WALKED_ROW : 0;
    const maxWalk = Math.max(
      options.denseMaxWalk,
      spanWalk,
      ranged || spannedOf(org, spec) ? 0 : est.textMatches / MATCHES_PER_WALKED_ROW,
    );
    if (spec.sortBy === "relevance") {
      // Rows whose name holds every term come first (tested as a directory whose path is its name:
      // a term with "/" never is; the path, which ends with the name, then holds them too).
      const inName = (c: ByLength) => matches(c[2], c[2], true);
      // The name matches from the shortest name up, short terms through the index's vocabulary
      // ("ab", "猫": the trigrams they begin), when their set is within reach.
      const short = termsOf(spec).short.length > 0;
      // The walk passes every shorter name first: where the sample says the matching names are long
      // (a music library's "01. Wembley - …": ~500k entries before the page), their rows are read.
      const named = est.hitNames.filter((n) => matches(n, n, true));
      const walked = expectedLengthWalk(est.names, named, offset + limit, maxRowid());
      const setRows = (named.length * maxRowid()) / Math.max(1, est.names.length);
      // The set holds the names alone, so a term in more paths than a set may hold may be in few
      // names: "[" is in 349k paths, through the folders of a film or music library ("… [1080p]"),
      // but in 16k names, all long (600 -> 7 ms). Only where the walk would read more rows than the
      // set has members: "9", in as many names, is among the shortest (the walk 2 ms, the set 83).
      // Under a folder the walk reads its span's entries alone, but the sample's names are the
      // library's, and its lengths may be another's (a music library's "01. … - ….flac"): only
      // where the walk would read many times more ("[" or ")" under /Music: 600 -> 8 ms, where
      // "1 2" there, 20 ms walking, took 96 by its set).
      const share = span ? Math.min(1, span.rows / Math.max(1, maxRowid())) / ENTRIES_PER_SET_ROW : 1;
      const settable =
        est.textMatches <= options.denseSetMax ||
        (setRows <= options.denseSetMax && walked * share > setRows);
      // Under a folder, the names within its span: "final" under /Music, 82k names in the library,
      // ~14k there.
      const within = spec.path ? pathSpansOf(org, spec.path) : undefined;
      const set = !short || settable ? nameSet(splitTerms(spec.text, expand), within) : undefined;
      // Terms too short for the index, whose set cannot be built or is too big: from the shortest
      // names up, which finds a common one's page at once ("e"). Where the set can be walked, that
      // walk read up to an eighth of the matches' rows first and mostly gave up ("ab", whose names
      // are not among the shortest: 106 against 69 ms, "東京" 18.6 against 8.6, in process).
      if (short && !set) {
        // The general plan reads every match, and tests each term on each (~2.4 s for the 365k of
        // "a b c d" at 1M rows): walking up to half as many rows (~140-250 ms) costs little when
        // the walk gives up, and finds pages whose names are rare among the shortest. Under a range,
        // an eighth of the matches: the subtree plan reads the range's rows ("9" under /Music:
        // 204 ms for its 174k rows, where the walk read 563 ms before it found the page).
        const budget = Math.max(
          2 * options.denseMaxWalk,
          spanWalk,
          ranged ? est.total / 8 : est.textMatches / 2,
        );
        // Names that hold the text, tested in SQL where it can be exactly (namesTextCondition): "("
        // 94 -> 51 ms; words and letters since the organization's letters are known, "b" 103 -> 58,
        // "x" 124 -> 77, "a b" 105 -> 80 (in JavaScript ~0.9 µs a row).
        const tested = namesTextCondition(spec);
        const found = shortest(
          org,
          spec,
          offset + limit,
          budget,
          (c) => c[4] === 1 && inName(c),
          acl,
          tested && { test: tested, sample: { names: est.names, hits: named } },
        );
        if (found && found.length >= offset + limit)
          return { ids: pageOf(SHORTEST_FIRST, found, limit, offset), total, estimated: true };
        // Beyond a set's reach (or a term without one), the exact plans.
        return undefined;
      }
      const byLength = set && nameSetQuery(org, spec, set, walked > ENTRIES_PER_SET_ROW * setRows, acl);
      // Names of one length tie by the hundreds of thousands in a camera's folders ("IMG_0001.JPG"):
      // the page's last length's first names from the name index, tested for that length and the
      // set (".jpg" and "_" by relevance went to the general plan: 94 and 280 ms at 200k rows).
      // Their names tested in SQL where they can be exactly (namesTextCondition), not looked up in the
      // set, which SQLite would build first (".jpg" by relevance: 420k names, 148 -> 33 ms).
      const tied = namesTextCondition(spec) ?? inSet(set!);
      const ties = (length: unknown, want: number) =>
        firstByName(
          (only) =>
            lengthTiesQuery(org, Number(length), tied, allConditions(spec, acl), withinSpan(org, spec), only),
          want,
        );
      const page = byLength && setWalk(limit, offset, byLength, false, SHORTEST_FIRST, undefined, ties);
      if (!page) return undefined;
      if (page.matched >= offset + limit) return { ids: page.ids, total, estimated: true };
      // The page reaches past them (a word of folders' names, "photos": few names hold it). The
      // rest are the matches through their folders' paths alone, from the shortest name up.
      const want = offset + limit - page.matched;
      const viaPath = (c: ByLength) => test(c) && !inName(c);
      // The walk reads every row of the last length it reaches (their order is by name), often far
      // past the matches it expected; it may read as many rows as would cost a quarter of the walk
      // over the set of every match that answers when it gives up.
      const budget = Math.max(
        walkBudget((want * maxRowid()) / est.total),
        est.textMatches * ROWS_PER_SET_MATCH,
      );
      const rest =
        shortest(org, spec, want, budget, viaPath, acl) ??
        pastNames(org, spec, offset + limit, new Set(page.rows), est.textMatches, acl);
      if (!rest) return undefined;
      const ids = [
        ...pageOf(SHORTEST_FIRST, page.rows, page.matched, 0),
        ...pageOf(SHORTEST_FIRST, rest, rest.length, 0),
      ];
      // Fewer than asked for: every match was read, and counted.
      return rest.length < want
        ? { ids: ids.slice(offset, offset + limit), total: ids.length, estimated: false }
        : { ids: ids.slice(offset, offset + limit), total, estimated: true };
    }
    if (spec.sortBy === "size" && !fromLargeMinimum(spec)) {
      // Largest first, the large files' index in exact order fills a page at once when they hold it
      // (a library of videos); a bucket walk reads and sorts whole buckets.
      const expectedWalk = ((offset + limit) * est.walked) / est.walkedHits;
      if (spec.sortOrder === "desc" && est.walkedHits > 0 && expectedWalk <= options.denseMaxWalk) {
        const large = walk(org, spec, limit, offset, walkBudget(expectedWalk), test, acl);
        if (large && !large.complete) return answer(large, total);
      }
      // The exact plans read every match (a row each, then a sort): a walk the sample expects to
      // read more rows than half as many is left to them, and one that reads that many gives up.
      const most = Math.max(est.total / 2, 2 * options.denseMaxWalk);
      const buckets = sizeBuckets(spec);
      const expected = expectedBucketRows(
        est.sized,
        spec.sortOrder === "desc",
        offset + limit,
        maxRowid(),
        ...buckets,
      );
      if (expected > most) {
        // Largest first, the walk of the buckets' index over the set of every match: an entry costs
        // a lookup in the set, not a row read ("東京": ~26k rows read to find 50 among the larger
        // files, left to the general plan, which reads all of its 46k matches).
        const viaSet = setPage(org, spec, est, acl)?.(limit, offset);
        return viaSet && answer(viaSet, total);
      }
      const page = bySize(org, spec, limit, offset, most, test, est.sized, est.names, est.textMatches, acl);
      return page && answer(page, total);
    }
    if (est.walkedHits === 0) return undefined;
    /** Entries a walk of the name order reads to hold the page, as the sample sees them (walkToPage); worked out once. */
    let pageAt: number | undefined;
    const toPage = () =>
      (pageAt ??= walkToPage(
        est.names,
        est.hitNames,
        spec.sortOrder === "desc",
        offset + limit,
        est.total,
        maxRowid(),
      ));
    if (spec.sortBy === "name") {
      // Under a path filter, the folder walk first: a name walk reads the row of every matching
      // name to test its path, and most may lie elsewhere (".jpg" under /Photos).
      const underPath = spec.path ? folderPage(org, spec, limit, offset, acl) : undefined;
      if (underPath) return answer(underPath, total);
      if (nameDecides(spec)) {
        // Names alone decide: SQLite walks the name index testing each name itself, without
        // reading rows (one is read only for a name that matches), so a long stretch of names
        // without a match ("mkv" after a music library's "01. …" tracks) costs a fraction of a row
        // read each: ~0.3 µs, against ~4 µs a match for the exact plans, so a walk of eight names
        // a match the sample expects costs them little when it gives up.
        // A walk the sample says ends past that ("dsc0" by name descending: its names near the end
        // of the order) is left to the exact plans at once, but for a short term ("e0"), whose
        // matches the exact plans read and test each (~135 ms), it goes on to the walks below.
        // One it says reads more than twice as many names as there are matches walks their set
        // instead ("tar.gz" in a library of empty files): an entry costs ~0.15 µs there against
        // ~0.45 testing the name, and the set ~0.6 µs a match to build; for a short term, once as
        // many, its names costing more to test (every spelling of its letters: "s0", its page 234k
        // names in for 118k matches, 60 ms testing names against 43 walking the set).
        const short = textTerms(spec.text, MAX_TERMS).some(isShortTerm);
        const entries = NAMES_PER_MATCH * est.total;
        const walked = toPage();
        if (walked <= entries) {
          const viaSet = walked > (short ? 1 : 2) * est.total ? setPage(org, spec, est, acl) : undefined;
          const named = viaSet
            ? viaSet(limit, offset)
            : namesWalk(org, spec, limit, offset, entries, est.names, acl);
          return named && answer(named, total);
        }
        if (!short) return undefined;
      }
      // With a term in folders' paths, the matches gather where their folders' rows fall in the
      // name order ("photos": none among a music library's "01. …" tracks, a sixth of the order):
      // a walk reading each row it passes gives up there, and one testing each entry's folder in
      // the index passes them at ~0.25 µs each.
      // A term too short for the index ("12" of "copy 12") is tested on the rows the others keep.
      const viaFolders =
        !spec.path && toPage() > options.denseMaxWalk
          ? boundedFolderPage(
              org,
              spec,
              limit,
              offset,
              acl,
              shortTermReads(org, spec, offset + limit, est, acl),
            )
          : undefined;
      if (viaFolders) return answer(viaFolders, total);
    }
    // Names, dates, or sizes from a large minimum (files_live_size_idx holds every candidate), when
    // matches are spread evenly enough over the order for a short walk reading every row it passes;
    // else (or when they are not: a walk past its budget) the walk over the set of matches.
    const expectedWalk = ((offset + limit) * est.walked) / est.walkedHits;
    // Where the matches gather away from the walk's start ("x y" by date, rarer among the rows
    // scanned last), the walk reads on past its expectation as far as maxWalk: the set walk after it
    // builds the set of every match first (~330 ms for those 138k).
    // A walk tested in SQL (testedWalk) by creation date reads rows in about the order a scan wrote
    // them, each for about a third of what the exact plans pay a match: where the sample places the
    // page within three rows a match ("(": 350k rows before its first match, where the general
    // plan read 690k in 550 ms), it goes as far as twice that; not further ("#": 875k rows before
    // its first). Walks of other orders tested in SQL, and walks whose filters SQLite tests (the
    // rows failing them never handed to JavaScript), read rows all over the table (~0.4-0.7 µs
    // each): up to half a row a match. "e" or "0" between 100 and 400 bytes in a library whose
    // empty music tracks ("01 …") come first by name, where the set of the matches is nearly every
    // row: 150-160 -> 14-17 ms at 200k rows; "#" by name, its page 200k names in, is left to the
    // set walk (2.5x faster there).
    const tested = pathTextCondition(spec.text) !== undefined;
    const filtered = tested || allConditions(spec, acl).sql !== "1";
    // By name, a walk testing each row in JavaScript (~1.6 µs a row) goes as far too, up to a
    // quarter of a row a match, where no set walk answers after it (its matches past a set's bound,
    // and no spans for them): "x" by name descending, its page ~47k names from the end, where the
    // walk gave up at 22k for the exact plans' 365k matches (~390 ms with the broad plan's counts).
    // Where a set walk can ("photos", by its folder's span: 10 ms), going further costs more (24).
    const unsettable = () => est.textMatches > options.denseSetMax && !spannedOf(org, spec);
    const extendable =
      !spec.path && spec.sortBy !== "size" && (filtered || (spec.sortBy === "name" && unsettable()));
    const placed = !extendable
      ? 0
      : spec.sortBy === "name"
        ? toPage()
        : walkToPage(
            est.dates,
            est.hitDates,
            spec.sortOrder === "desc",
            offset + limit,
            est.total,
            maxRowid(),
          );
    const perMatch = !filtered
      ? READ_ROWS_PER_MATCH
      : tested && spec.sortBy === "created_at"
        ? TESTED_ROWS_PER_MATCH
        : FILTERED_ROWS_PER_MATCH;
    const reach =
      placed > 0 && 1.5 * placed <= perMatch * est.textMatches ? Math.max(maxWalk, 2 * placed) : maxWalk;
    /**
     * True when the sample places the page's last match more than
     * LATE_PAGE_PAST times `budget` rows into the order, from enough of its
     * matches to tell (LATE_PAGE_HITS): a walk reading every row it passes
     * would read its whole budget and give up before the set walk ("s0" by
     * name, its page ~700k names in: 7.4k rows, 21 ms, read for nothing).
     * The walk is skipped only where the set walk can answer.
     */
    const placedPast = (budget: number): boolean => {
      // The sample's names are those of every row: a walk of directories alone (their own index) or
      // of a folder's rows reads another order.
      if (spec.sortBy !== "name" || spec.type === "directory" || spec.path) return false;
      if (est.hitNames.length < LATE_PAGE_HITS) return false;
      const at = toPage();
      return at < maxRowid() && at > LATE_PAGE_PAST * budget;
    };
    const budget = Math.max(walkBudget(expectedWalk), reach);
    const setFirst = expectedWalk <= reach && placedPast(budget) ? setPage(org, spec, est, acl) : undefined;
    const page =
      expectedWalk <= reach && !setFirst ? walk(org, spec, limit, offset, budget, test, acl) : undefined;
    if (page) return answer(page, total);
    const viaSet = (setFirst ?? setPage(org, spec, est, acl))?.(limit, offset);
    return viaSet && answer(viaSet, total);
  };
}
