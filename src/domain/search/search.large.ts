import { termCondition } from "./search.contains.ts";
import {
  andWhere,
  countOf,
  LARGE_FILE_BYTES,
  lettersOf,
  MAX_TERMS,
  rowFilters,
  type Sql,
  termsOf,
  textTerms,
  windowOf,
} from "./search.query.ts";
import type { SearchSpec } from "./search.schemas.ts";

/**
 * The plan for searches among large files: a minimum size of at least
 * LARGE_FILE_BYTES ("mkv" over 1 GB). Every such file is in
 * files_live_size_idx (migration 0015), and a library holds few of them (its
 * films, disk images, backups), so this plan reads the files at or above the
 * minimum, checks the terms on each one's path in SQL, and sorts and counts
 * what matches: its cost follows the large files, not the terms' matches.
 * The general plan read every row holding the term to check its size (a
 * 1M-file tree without a file over 1 GB: "mkv" over 1 GB by size ~190 ms for
 * no result). Used while the organization has at most LARGE_PLAN_MAX files
 * at or above the minimum (counted from the index alone); the total is exact.
 *
 * A term without "/" is in a row's path exactly when the index would match
 * it (in the name, or in the path of the folder holding it), so the checks
 * are the folder-terms plan's (search.contains.ts termCondition), case- and
 * accent-insensitive like the index. The order and tie-breaks are the general plan's
 * (searchOrder), so a page is the same rows in the same order.
 */
export const LARGE_PLAN_MAX = 5000;

/** True when the plan can answer `spec`: a large minimum size, no tags, no "/" in a term, not by relevance. */
export function largeEligible(spec: SearchSpec): boolean {
  if ((spec.minSize ?? 0) < LARGE_FILE_BYTES || spec.tagIds.length > 0) return false;
  if (spec.sortBy === "relevance") return false;
  return textTerms(spec.text, MAX_TERMS).every((t) => !t.includes("/"));
}

/** The live files of the organization at or above the minimum, as files_live_size_idx holds them. */
function largeFiles(organizationId: string, minSize: number): Sql {
  // The literal bound lets SQLite use the partial index (its WHERE is size >= LARGE_FILE_BYTES);
  // the parameter is the range walked.
  return {
    sql: `FROM files f INDEXED BY files_live_size_idx WHERE f.organization_id = ? AND f.is_deleted = 0 AND f.size >= ${LARGE_FILE_BYTES} AND f.size >= ?`,
    params: [organizationId, minSize],
  };
}

/**
 * How many files the plan would read (before terms, filters and grants),
 * counted up to LARGE_PLAN_MAX + 1: a library of many large files costs
 * this count no more than one of few.
 */
export function largeCountQuery(organizationId: string, spec: SearchSpec): Sql {
  const from = largeFiles(organizationId, spec.minSize ?? LARGE_FILE_BYTES);
  return {
    sql: `SELECT count(*) AS n FROM (SELECT 1 ${from.sql} LIMIT ${LARGE_PLAN_MAX + 1})`,
    params: from.params,
  };
}

/** FROM … WHERE of the matches readable under `acl`; `spec` resolved (its short terms known). */
function largeMatches(organizationId: string, spec: SearchSpec, acl?: Sql): Sql {
  const { short } = termsOf(spec);
  const from = largeFiles(organizationId, spec.minSize ?? LARGE_FILE_BYTES);
  const conds: Sql[] = textTerms(spec.text, MAX_TERMS).map((t) =>
    termCondition("f.path", t, short.includes(t), lettersOf(spec)),
  );
  const filters = rowFilters(spec, true);
  if (filters.sql.length > 0) conds.push({ sql: filters.sql.join(" AND "), params: filters.params });
  if (acl) conds.push(acl);
  return andWhere(from, conds);
}

/** Ids of one window of matches in the search's order, each with the count of all matches. */
export function largePageQuery(
  organizationId: string,
  spec: SearchSpec,
  limit: number,
  offset: number,
  acl?: Sql,
): Sql {
  return windowOf(largeMatches(organizationId, spec, acl), spec, limit, offset);
}

/** The count of every match (for a window past the end). */
export function largeTotalQuery(organizationId: string, spec: SearchSpec, acl?: Sql): Sql {
  return countOf(largeMatches(organizationId, spec, acl));
}
