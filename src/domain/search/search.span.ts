import { ALL_LETTERS, foldText } from "./fold.ts";
import { termCondition } from "./search.contains.ts";
import {
  anyOf,
  countUpTo,
  isShortTerm,
  MAX_TERMS,
  type Sql,
  termExpression,
  textTerms,
} from "./search.query.ts";
import type { SearchSpec } from "./search.schemas.ts";
import { subtreeEligible } from "./search.subtree.ts";

/**
 * The plan for text under a folder whose rows a scan wrote together: the
 * subtree plan (search.subtree.ts, every term checked on each row's path)
 * over the folder's rows that hold its least common term, found in the FTS
 * index within the folder's span of rowids instead of read from the whole
 * folder.
 *
 * A first scan writes a folder's rows depth first, so every folder's
 * descendants hold one run of rowids (at 1M rows, /Photos is rowids
 * 173,964-349,930: all 175,967 of its rows, and so is each folder below it).
 * FTS5 reads a term's matches within a range of rowids from its doclists
 * alone. "final" under /Photos: its 1,088 names there, and the children of
 * the 300-odd folders there whose path holds it, 5,569 rows in all, read in
 * ~6 ms, where the subtree plan read the folder's 176k rows (~115 ms) and
 * the others each of the term's 126k matches in the library.
 *
 * The span is the least and greatest rowid of the folder's descendants
 * (files_path_idx: ~0.12 µs an entry, ~21 ms for /Photos), kept until the
 * database changes (search.repo.ts); uploads and moves into the folder later
 * widen it, and rows of other folders inside it are read and left out by
 * the path check, so the span only ever decides the cost, never the rows.
 * The folder's own row is never a candidate: a term its path holds is held
 * by every row under it, so another term drives, or the plan declines.
 */

/** A folder's descendants' rowids (deleted rows too): from `lo` to `hi`, `rows` of them. */
export interface Span {
  lo: number;
  hi: number;
  rows: number;
}

/**
 * The span's rows as a condition on `f` (its rowid, held by every index
 * entry) when the span holds the folder's descendants and nothing else:
 * as many of them as rowids from `lo` to `hi`. Undefined otherwise.
 */
export function pureSpan(span: Span | undefined): Sql | undefined {
  if (!span || span.rows === 0 || span.rows !== span.hi - span.lo + 1) return undefined;
  return { sql: "f.rowid BETWEEN ? AND ?", params: [BigInt(span.lo), BigInt(span.hi)] };
}

/** Rows whose rowid lies within one of `spans`, as a condition on `f` ("0" for none). */
export function spansCondition(spans: readonly Span[]): Sql {
  const held = spans.filter((s) => s.rows > 0);
  if (held.length === 0) return { sql: "0", params: [] };
  return {
    sql: `(${held.map(() => "f.rowid BETWEEN ? AND ?").join(" OR ")})`,
    params: held.flatMap((s) => [BigInt(s.lo), BigInt(s.hi)]),
  };
}

/** True when the plan can answer `spec`: the subtree plan's searches (text, no tags, no "/") under a folder. */
export function spanEligible(spec: SearchSpec): boolean {
  return spec.path !== undefined && subtreeEligible(spec);
}

/**
 * The span of the folder's descendants, read from files_path_idx up to
 * `bound` + 1 entries (rows past it: the span is not worth its cost).
 */
export function spanQuery(organizationId: string, path: string, bound: number): Sql {
  return {
    sql:
      "SELECT min(r) AS lo, max(r) AS hi, count(*) AS n FROM (SELECT f.rowid AS r FROM files f INDEXED BY files_path_idx " +
      `WHERE f.organization_id = ? AND f.path >= ? AND f.path < ? LIMIT ${Math.floor(bound) + 1})`,
    params: [organizationId, `${path}/`, `${path}0`],
  };
}

/**
 * A term of the text as the plan takes it: as typed; its FTS expression
 * (undefined: it does not drive, or the index cannot answer it); whether
 * SQL scans for it (a short term the index did not resolve, Terms.short).
 */
export interface SpanTerm {
  term: string;
  expr?: string;
  scanned: boolean;
}

/**
 * The text's terms, a short one resolved through `expand` as splitTerms
 * does; undefined when a short term begins no indexed trigram (nothing
 * matches). A single Latin letter or digit is never asked of the index
 * here: it begins hundreds of trigrams in any library (asking costs ~20 ms
 * for "e" at 1M rows), far too many rows to drive; `resolve` asks later,
 * only when the plan answers and must check it on rows as the others do.
 */
export function spanTerms(
  text: string,
  expand: (term: string) => string[] | undefined,
): { terms: SpanTerm[]; resolve: () => SpanTerm[] | undefined } | undefined {
  const resolveOne = (term: string): SpanTerm | undefined => {
    if (!isShortTerm(term)) return { term, expr: termExpression(term), scanned: false };
    const trigrams = expand(term);
    if (trigrams?.length === 0) return undefined;
    const expr = trigrams && anyOf(trigrams);
    return { term, expr, scanned: trigrams === undefined };
  };
  const terms: SpanTerm[] = [];
  const later: number[] = [];
  for (const term of textTerms(text, MAX_TERMS)) {
    if (/^[a-z0-9]$/u.test(foldText(term))) {
      later.push(terms.length);
      terms.push({ term, scanned: false });
      continue;
    }
    const one = resolveOne(term);
    if (!one) return undefined;
    terms.push(one);
  }
  const resolve = () => {
    const out = [...terms];
    for (const i of later) {
      const one = resolveOne(out[i]!.term);
      if (!one) return undefined;
      out[i] = one;
    }
    return out;
  };
  return { terms, resolve };
}

/** 1 when the folder's own path holds `term` (as its rows' checks test it), else 0. */
export function pathHoldsQuery(path: string, term: SpanTerm): Sql {
  // One path, tested once: covering every kind of letter costs nothing here.
  const c = termCondition("p", term.term, term.scanned, ALL_LETTERS);
  return { sql: `SELECT (${c.sql}) AS n FROM (SELECT ? AS p)`, params: [...c.params, path] };
}

/**
 * Rowids (`r`) within the span holding `expr` in their own index row (a
 * name, a directory's path) or in the path of their folder, itself within
 * the span: a descendant's folder is one too, or the folder filtered on,
 * whose path the caller knows lacks the term. Both halves are read in the
 * FTS index's order, the folders' children joined to each folder as it
 * comes, so that a count up to a bound stops there; `all` keeps duplicates
 * (a directory holding the term, child of another: such a count is an
 * upper bound). The organization is checked on the rows read from the set
 * (a child's row is not read here: ~3 µs each).
 */
export function spanSet(expr: string, span: Span, all = false): Sql {
  // Integers: FTS5 reads a range of rowids from its doclists only when the bounds are (a JS number
  // binds as a REAL, and the whole doclist is read and filtered: 7.4 against 0.2 ms for "final").
  const lo = BigInt(span.lo);
  const hi = BigInt(span.hi);
  return {
    sql:
      `SELECT rowid AS r FROM files_fts WHERE files_fts MATCH ? AND rowid BETWEEN ? AND ? UNION ${all ? "ALL " : ""}` +
      "SELECT c.rowid FROM files_fts JOIN files d ON d.rowid = files_fts.rowid " +
      "JOIN files c INDEXED BY files_parent_idx ON c.parent_id = d.id " +
      "WHERE files_fts MATCH ? AND files_fts.rowid BETWEEN ? AND ? AND c.rowid BETWEEN ? AND ?",
    params: [expr, lo, hi, `path : (${expr})`, lo, hi, lo, hi],
  };
}

/** The rows of `set`, counted up to `bound` + 1. */
export const spanSetCountQuery = (set: Sql, bound: number): Sql =>
  countUpTo({ sql: `FROM (${set.sql})`, params: set.params }, bound);
