import type { Sql } from "./search.query.ts";
import type { Span } from "./search.span.ts";

/**
 * The plan for several words some folders' names hold ("krakow live",
 * "breaking bad s03"): a row holds a word through its folders' paths
 * exactly when it lies under a directory whose name holds the word (a word
 * without "/" lies within one name of a path), and a first scan writes the
 * rows under each directory as one run of rowids (search.span.ts). So a
 * word's rows are its own index matches (names, directories' paths) and the
 * runs under the directories its name holds. The plan reads each word's
 * own matches' rowids from the FTS index, intersects the words' rows as
 * sets of rowids and runs in JavaScript, and reads the rows of what is left
 * to check every word on their paths, the filters and the grants in SQL
 * (the subtree plan's checks: search.subtree.ts), in the search's order.
 *
 * The folders plan (search.folders.ts) read the children of every folder
 * whose path holds a word (2,950 folders for "krakow" at 1M rows, ~14 µs
 * each) or the rows of a word's every own match (~3 µs each): ~56 ms for
 * "krakow live", whose 2,321 rows this plan finds among ~36k rowids and
 * ~1,700 runs.
 *
 * A run is the least and greatest rowid under its directory, so it holds
 * every row under it; rows of other folders within it are candidates the
 * path check leaves out. The runs are kept until the database changes.
 */

/** A word of the text: as typed, and its FTS expression. */
export interface RunsTerm {
  term: string;
  expr: string;
}

/** The index matches of `expr` in its own rows (FROM … WHERE), for a bounded count. */
export const ownMatches = (expr: string): Sql => ({
  sql: "FROM files_fts WHERE files_fts MATCH ?",
  params: [expr],
});

/** Rowids of the index matches of `expr` in their own rows, in rowid order, at most `most`. */
export const ownRowidsQuery = (expr: string, most: number): Sql => ({
  sql: "SELECT rowid AS own FROM files_fts WHERE files_fts MATCH ? LIMIT ?",
  params: [expr, most],
});

/**
 * The directories whose name holds `expr` (only directories' index rows hold
 * a path), FROM … WHERE for a bounded count, from the index alone.
 */
export const namedDirs = (expr: string): Sql => ({
  sql: "FROM files_fts WHERE files_fts MATCH ?",
  params: [`name : (${expr}) AND path : (${expr})`],
});

/** Their paths, the organization's alone (deleted ones too: their rows may be live). */
export const namedDirPathsQuery = (organizationId: string, expr: string): Sql => ({
  sql:
    "SELECT f.path AS path FROM files_fts JOIN files f ON f.rowid = files_fts.rowid " +
    "WHERE files_fts MATCH ? AND f.organization_id = ?",
  params: [`name : (${expr}) AND path : (${expr})`, organizationId],
});

/** Runs sorted and merged where they overlap or touch: disjoint, ascending. */
export function mergeRuns(spans: readonly Span[]): [number, number][] {
  const sorted = spans
    .filter((s) => s.rows > 0)
    .map((s): [number, number] => [s.lo, s.hi])
    .sort((a, b) => a[0] - b[0]);
  const out: [number, number][] = [];
  for (const run of sorted) {
    const last = out[out.length - 1];
    if (last && run[0] <= last[1] + 1) last[1] = Math.max(last[1], run[1]);
    else out.push(run);
  }
  return out;
}

/** Whether `x` lies within one of `runs` (disjoint, ascending). */
export function inRuns(runs: readonly (readonly [number, number])[], x: number): boolean {
  let lo = 0;
  let hi = runs.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    const run = runs[mid]!;
    if (run[1] < x) lo = mid + 1;
    else if (run[0] > x) hi = mid - 1;
    else return true;
  }
  return false;
}

/** The parts of `a` within `b` (both disjoint, ascending). */
export function intersectRuns(
  a: readonly (readonly [number, number])[],
  b: readonly (readonly [number, number])[],
): [number, number][] {
  const out: [number, number][] = [];
  let i = 0;
  let j = 0;
  while (i < a.length && j < b.length) {
    const lo = Math.max(a[i]![0], b[j]![0]);
    const hi = Math.min(a[i]![1], b[j]![1]);
    if (lo <= hi) out.push([lo, hi]);
    if (a[i]![1] < b[j]![1]) i++;
    else j++;
  }
  return out;
}

/** Whether `x` is in `sorted` (ascending): a binary search, where a Set of 80k rowids took ~7 ms to build. */
export function hasSorted(sorted: ArrayLike<number>, x: number): boolean {
  let lo = 0;
  let hi = sorted.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    const v = sorted[mid]!;
    if (v < x) lo = mid + 1;
    else if (v > x) hi = mid - 1;
    else return true;
  }
  return false;
}

/** One word's rows: its own index matches (ascending rowids) and the runs under the directories its name holds. */
export interface WordRows {
  own: ArrayLike<number> & Iterable<number>;
  runs: readonly (readonly [number, number])[];
}

/**
 * The rowids in every word's rows, ascending, or undefined past `most` of
 * them. Each word's rows are a sorted list and runs; the first word's are
 * walked (its runs a rowid at a time, only where they overlap the other
 * words' runs or hold their own matches) and each rowid kept when every
 * other word holds it.
 */
export function intersectWords(words: readonly WordRows[], most: number): number[] | undefined {
  const [first, ...rest] = words;
  if (!first) return [];
  const holds = (x: number) => rest.every((w) => hasSorted(w.own, x) || inRuns(w.runs, x));
  const out = new Set<number>();
  for (const x of first.own) if (holds(x)) out.add(x);
  if (out.size > most) return undefined;
  // Within the first word's runs, a candidate is in every other word's runs, or one of its own
  // matches: the runs intersected, and each other word's own matches within them.
  let within: [number, number][] = first.runs.map(([lo, hi]) => [lo, hi]);
  for (const w of rest) {
    const mine: number[] = [];
    if (within.length > 0) for (const x of w.own) if (inRuns(within, x)) mine.push(x);
    const common = intersectRuns(within, w.runs);
    const spans = mergeRuns([
      ...common.map(([lo, hi]) => ({ lo, hi, rows: 1 })),
      ...mine.map((x) => ({ lo: x, hi: x, rows: 1 })),
    ]);
    within = spans;
    let size = 0;
    for (const [lo, hi] of within) size += hi - lo + 1;
    if (size > 4 * most) return undefined;
  }
  for (const [lo, hi] of within)
    for (let x = lo; x <= hi; x++) {
      if (holds(x)) out.add(x);
      if (out.size > most) return undefined;
    }
  return [...out].sort((a, b) => a - b);
}

/** The rowids `rowids` lists, as a subquery of rowids `r` (search.subtree.ts setCheckedPageQuery). */
export const rowidSet = (rowids: readonly number[]): Sql => ({
  sql: "SELECT value AS r FROM json_each(?)",
  params: [JSON.stringify(rowids)],
});
