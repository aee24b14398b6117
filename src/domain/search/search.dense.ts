import { rowFilters, type Sql } from "./search.query.ts";
import type { SearchSpec } from "./search.schemas.ts";

/**
 * The plan for dense searches: text whose matches are a sizeable share of
 * the library ("invoice", "2160p", "zo", "mkv" over 1 GB by size). Asking
 * the FTS index costs in proportion to the matches (every doclist of a
 * common trigram read, positions checked, every match joined to its row to
 * sort and count it); this plan costs in proportion to one page instead:
 *
 * - estimate: the search's rule (search.match.ts) over a fixed sample of the
 *   table (SAMPLE_WINDOWS runs of WINDOW_ROWS consecutive rowids, spread
 *   evenly), filters and folder grants applied in SQL; matches in the
 *   sample, scaled to the rowid range, estimate the total. Only when that is
 *   above EXACT_TOTAL_BOUND is the plan used, so smaller totals stay exact;
 * - page: walk the index of the requested order (files_live_name_idx,
 *   files_live_size_idx), filters and grants in SQL, and test each row's
 *   path against the terms in JavaScript, stopping once the page is full.
 *   Reaching the end of the walk makes the total exact.
 *
 * The order and tie-breaks are the general plan's (search.query.ts
 * searchOrder), so a page is the same rows in the same order.
 */

/** Runs of consecutive rowids the estimate reads. */
export const SAMPLE_WINDOWS = 512;
/** Rows in each run: a few siblings share their folder's pages. */
export const WINDOW_ROWS = 4;

/** True when the dense plan can answer `spec`: text to match, sorted by name or size, no tags. */
export function denseEligible(spec: SearchSpec): boolean {
  return spec.text !== "" && (spec.sortBy === "name" || spec.sortBy === "size") && spec.tagIds.length === 0;
}

/** The first rowid of each window of the sample over rowids 1..maxRowid. */
export function sampleStarts(maxRowid: number): number[] {
  const step = Math.max(WINDOW_ROWS, Math.floor(maxRowid / SAMPLE_WINDOWS));
  const starts: number[] = [];
  for (let start = 1; start <= maxRowid && starts.length < SAMPLE_WINDOWS; start += step) starts.push(start);
  return starts;
}

/** How many rowids of 1..maxRowid the windows starting at `starts` cover: what the sample's matches scale from. */
export function sampledRowids(starts: readonly number[], maxRowid: number): number {
  return starts.reduce((n, start) => n + Math.max(0, Math.min(WINDOW_ROWS, maxRowid - start + 1)), 0);
}

const COLUMNS = "f.id AS id, f.path AS path, f.name AS name, f.type = 'directory' AS dir";

/** Live rows of the organization passing the search's filters and `acl`: the rows the rule is tested on. */
function conditions(organizationId: string, spec: SearchSpec, acl?: Sql): Sql {
  const filters = rowFilters(spec, true);
  const where = ["f.organization_id = ?", "f.is_deleted = 0", ...filters.sql];
  const params: unknown[] = [organizationId, ...filters.params];
  if (acl) {
    where.push(acl.sql);
    params.push(...acl.params);
  }
  return { sql: where.join(" AND "), params };
}

/**
 * The sample's candidate rows (id, path, name, dir), windows starting at
 * `starts`. NOT INDEXED: with the organization in the WHERE, SQLite would
 * rather walk an organization-prefixed index once per window.
 */
export function sampleQuery(organizationId: string, spec: SearchSpec, starts: number[], acl?: Sql): Sql {
  const where = conditions(organizationId, spec, acl);
  return {
    sql:
      `SELECT ${COLUMNS} FROM json_each(?) w CROSS JOIN files f NOT INDEXED ` +
      `ON f.rowid >= w.value AND f.rowid < w.value + ${WINDOW_ROWS} WHERE ${where.sql}`,
    params: [JSON.stringify(starts), ...where.params],
  };
}

/**
 * Candidate rows (id, path, name, dir) in the search's order, walking the
 * order's index; the caller tests each and stops after one page.
 */
export function walkQuery(organizationId: string, spec: SearchSpec, acl?: Sql): Sql {
  const dir = spec.sortOrder === "desc" ? "DESC" : "ASC";
  const where = conditions(organizationId, spec, acl);
  const byName = `f.name COLLATE NOCASE ${dir}, f.name ${dir}, f.id ${dir}`;
  const [index, order] =
    spec.sortBy === "size"
      ? ["files_live_size_idx", `f.size ${dir}, ${byName}`]
      : ["files_live_name_idx", byName];
  return {
    sql: `SELECT ${COLUMNS} FROM files f INDEXED BY ${index} WHERE ${where.sql} ORDER BY ${order}`,
    params: where.params,
  };
}
