import { termCondition } from "./search.contains.ts";
import {
  andWhere,
  countOf,
  countUpTo,
  lettersOf,
  MAX_TERMS,
  pathRange,
  rowFilters,
  type Sql,
  searchOrder,
  sizeBucketRange,
  termsOf,
  textTerms,
  windowOf,
} from "./search.query.ts";
import type { SearchSpec } from "./search.schemas.ts";

/**
 * The plan for common terms within one folder: a path filter whose rows are
 * fewer than the least common term's matches ("e" under /Photos, "x" by size
 * under /Music). The other plans are driven by the index's matches of a
 * term and check the path on each: "e" alone has ~950k matches in a 1M-row
 * library, read to keep the 141k under /Photos (2.1-2.4 s). This plan reads
 * the folder's rows from files_path_idx instead and checks every term on
 * each one's path in SQL, as the large-files plan does (search.large.ts):
 * 0.26-0.40 s for the same page. Without a path filter, a span of creation
 * dates (start_date, end_date) is read the same way from
 * files_live_created_idx ("ü" added in the first half of 2020: 24k rows
 * read instead of 716k matches), and without dates a range of sizes from
 * files_live_size_bucket_idx ("ä ö ü" from 400 bytes: 21k rows instead of
 * every live row, 1.9 s). Its cost follows the range's rows, so it
 * is used only when the least common term's index matches are estimated
 * at SearchPlanOptions.subtreeMinMatches or more and the range holds at
 * most twice as many rows (search.repo.ts SUBTREE_ROWS_PER_MATCH; counted
 * from the index alone, up to that bound). The total is
 * exact; the order and tie-breaks are the general plan's (searchOrder; by
 * relevance, "the name holds every term" is checked on the name in SQL
 * instead of asked of the index), so a page is the same rows in the same
 * order.
 */

/**
 * True when the plan can answer `spec`: text under a path filter, within
 * dates or within a range of sizes, no tags, no "/" in a term.
 */
export function subtreeEligible(spec: SearchSpec): boolean {
  const sized = spec.minSize !== undefined || spec.maxSize !== undefined;
  if (!(spec.path || spec.startDate || spec.endDate || sized)) return false;
  if (spec.text === "" || spec.tagIds.length > 0) return false;
  return textTerms(spec.text, MAX_TERMS).every((t) => !t.includes("/"));
}

/**
 * The organization's rows at or under the path filter, as files_path_idx
 * holds them (deleted ones too); without one, its live rows created within
 * the dates, from files_live_created_idx; without either, its live rows in
 * the buckets of the range of sizes (search.query.ts sizeBucketRange).
 */
function under(organizationId: string, spec: SearchSpec): Sql {
  if (!spec.path && !spec.startDate && !spec.endDate) return sizeBucketRange(organizationId, spec);
  if (spec.path) {
    const range = pathRange(spec.path, false);
    return {
      sql: `FROM files f INDEXED BY files_path_idx WHERE f.organization_id = ? AND ${range.sql}`,
      params: [organizationId, ...range.params],
    };
  }
  return {
    sql:
      "FROM files f INDEXED BY files_live_created_idx WHERE f.organization_id = ? AND f.is_deleted = 0 " +
      "AND f.created_at >= ? AND f.created_at <= ?",
    // Past every ISO 8601 date: the end of an open span.
    params: [organizationId, spec.startDate ?? "", spec.endDate ?? "\uffff"],
  };
}

/** How many rows the plan would read, counted from the index up to `bound` + 1. */
export function subtreeCountQuery(organizationId: string, spec: SearchSpec, bound: number): Sql {
  return countUpTo(under(organizationId, spec), bound);
}

/** `column` holds every term of `spec` (resolved: its short terms known), as the index would match them. */
function everyTerm(column: string, spec: SearchSpec): Sql[] {
  const { short } = termsOf(spec);
  return textTerms(spec.text, MAX_TERMS).map((t) =>
    termCondition(column, t, short.includes(t), lettersOf(spec)),
  );
}

/** FROM … WHERE of the matches readable under `acl`. */
function subtreeMatches(organizationId: string, spec: SearchSpec, acl?: Sql): Sql {
  return subtreeConditions(under(organizationId, spec), spec, false, acl);
}

/**
 * `from` (a FROM … WHERE on `f`) with the plan's checks ANDed: a live row,
 * every term on its path, the search's other filters (its path range too
 * when `from` does not read that range itself: `checkPath`), and `acl`.
 */
function subtreeConditions(from: Sql, spec: SearchSpec, checkPath: boolean, acl?: Sql): Sql {
  const conds: Sql[] = [{ sql: "f.is_deleted = 0", params: [] }, ...everyTerm("f.path", spec)];
  const filters = rowFilters(checkPath ? spec : { ...spec, path: undefined }, true);
  if (filters.sql.length > 0) conds.push({ sql: filters.sql.join(" AND "), params: filters.params });
  if (acl) conds.push(acl);
  return andWhere(from, conds);
}

/** The general plan's order; by relevance, name matches first as checked on the name itself. */
function subtreeOrder(spec: SearchSpec): Sql {
  if (spec.sortBy !== "relevance") return searchOrder(spec);
  const named = everyTerm("f.name", spec);
  return {
    sql: `CASE WHEN ${named.map((c) => c.sql).join(" AND ")} THEN 0 ELSE 1 END, length(f.name), f.name COLLATE NOCASE, f.id`,
    params: named.flatMap((c) => c.params),
  };
}

/** Ids of one window of matches in the search's order, each with the count of all matches. */
export function subtreePageQuery(
  organizationId: string,
  spec: SearchSpec,
  limit: number,
  offset: number,
  acl?: Sql,
): Sql {
  return windowOf(subtreeMatches(organizationId, spec, acl), spec, limit, offset, subtreeOrder(spec));
}

/** The count of every match (for a window past the end). */
export function subtreeTotalQuery(organizationId: string, spec: SearchSpec, acl?: Sql): Sql {
  return countOf(subtreeMatches(organizationId, spec, acl));
}

/**
 * `spec` as the plans that check its terms on rows read it (the span and
 * runs plans): every term checked on the path, `scanned` those SQL scans
 * for (Terms.short), none asked of the index.
 */
export const checkedSpec = (spec: SearchSpec, scanned: string[]): SearchSpec => ({
  ...spec,
  terms: { fts: [], viaFolders: [], short: scanned, none: false },
});

/** FROM … WHERE of the rows of `set` (a subquery of rowids `r`) passing this plan's checks under `acl`. */
function setChecked(organizationId: string, spec: SearchSpec, set: Sql, acl?: Sql): Sql {
  const from: Sql = {
    sql: `FROM (${set.sql}) m CROSS JOIN files f ON f.rowid = m.r WHERE f.organization_id = ?`,
    params: [...set.params, organizationId],
  };
  return subtreeConditions(from, spec, true, acl);
}

/** Ids of one window of the rows of `set` passing the checks, in the search's order, each with their count. */
export function setCheckedPageQuery(
  organizationId: string,
  spec: SearchSpec,
  set: Sql,
  limit: number,
  offset: number,
  acl?: Sql,
): Sql {
  return windowOf(setChecked(organizationId, spec, set, acl), spec, limit, offset, subtreeOrder(spec));
}

/** The count of the rows of `set` passing the checks (for a window past the end). */
export function setCheckedTotalQuery(organizationId: string, spec: SearchSpec, set: Sql, acl?: Sql): Sql {
  return countOf(setChecked(organizationId, spec, set, acl));
}
