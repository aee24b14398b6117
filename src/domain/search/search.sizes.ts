import {
  andWhere,
  countOf,
  countUpTo,
  LARGE_FILE_BYTES,
  MAX_TERMS,
  rowFilters,
  SIZE_BUCKET,
  type Sql,
  sizeBucketOf,
  textTerms,
  windowOf,
} from "./search.query.ts";
import type { SearchSpec } from "./search.schemas.ts";

/**
 * The plan for text within a range of sizes ("final" between 100 and 400
 * bytes) whose matches are too few for the dense plan's estimate, so their
 * total is counted. The other plans are driven by a term's matches in the
 * FTS index and read each one's row to check its size: "final" holds ~110k
 * rows (names, and the children of folders named so) to keep 6k, 0.25-0.33 s
 * at 1M rows. This plan reads the size range's rows from
 * files_live_size_bucket_idx instead (migration 0021: the range's buckets,
 * each row's exact size then checked), and tests each entry's rowid against
 * the set of the text's matches SQLite builds once from the FTS index
 * (search.sets.ts textSet) before its row is read: only the matches' rows
 * are. It is used when the range holds at most a few rows per index match
 * of the least common term (search.repo.ts SIZE_RANGE_ROWS_PER_MATCH;
 * counted from the index alone, up to that bound).
 * The total is exact; the order and tie-breaks are the general plan's.
 */

/**
 * True when the plan can answer `spec`: one term (without "/") within a
 * size range below the large plan's, no tags. Of several terms, the set is
 * built from every one's matches, where the folders plan reads the least
 * common one's alone ("breaking bad s03": 130 against 68-90 ms).
 */
export function sizeRangeEligible(spec: SearchSpec): boolean {
  if (spec.minSize === undefined && spec.maxSize === undefined) return false;
  // From LARGE_FILE_BYTES up the large-files plan reads its own index (search.large.ts).
  if ((spec.minSize ?? 0) >= LARGE_FILE_BYTES) return false;
  if (spec.tagIds.length > 0) return false;
  const terms = textTerms(spec.text, MAX_TERMS);
  return terms.length === 1 && !terms[0]!.includes("/");
}

/** The organization's live rows in the buckets that can hold the range's sizes (files_live_size_bucket_idx). */
function inBuckets(organizationId: string, spec: SearchSpec): Sql {
  const lowest = sizeBucketOf(spec.minSize ?? 0);
  const highest = spec.maxSize === undefined ? Number.MAX_SAFE_INTEGER : sizeBucketOf(spec.maxSize);
  return {
    sql:
      "FROM files f INDEXED BY files_live_size_bucket_idx " +
      `WHERE f.organization_id = ? AND f.is_deleted = 0 AND ${SIZE_BUCKET} BETWEEN ? AND ?`,
    params: [organizationId, lowest, highest],
  };
}

/** How many rows the plan would read, counted from the index up to `bound` + 1. */
export function sizeRangeRowsQuery(organizationId: string, spec: SearchSpec, bound: number): Sql {
  return countUpTo(inBuckets(organizationId, spec), bound);
}

/**
 * FROM … WHERE of the matches readable under `acl`: the range's rows
 * passing `match` (the text's matches, tested on each entry: search.sets.ts
 * inSet or spannedMatch).
 */
function sizeRangeMatches(organizationId: string, spec: SearchSpec, match: Sql, acl?: Sql): Sql {
  const conds: Sql[] = [match];
  // The exact sizes, the path filter, type and dates, off their own indexes.
  const filters = rowFilters(spec, true);
  if (filters.sql.length > 0) conds.push({ sql: filters.sql.join(" AND "), params: filters.params });
  if (acl) conds.push(acl);
  return andWhere(inBuckets(organizationId, spec), conds);
}

/** Ids of one window of matches in the search's order, each with the count of all matches. */
export function sizeRangePageQuery(
  organizationId: string,
  spec: SearchSpec,
  match: Sql,
  limit: number,
  offset: number,
  acl?: Sql,
): Sql {
  return windowOf(sizeRangeMatches(organizationId, spec, match, acl), spec, limit, offset);
}

/** The count of every match (for a window past the end). */
export function sizeRangeTotalQuery(organizationId: string, spec: SearchSpec, match: Sql, acl?: Sql): Sql {
  return countOf(sizeRangeMatches(organizationId, spec, match, acl));
}
