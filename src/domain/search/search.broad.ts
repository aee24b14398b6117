import {
  FOLDER_MATCHES,
  ftsExpression,
  OWN_MATCHES,
  pathCondition,
  type Sql,
  termsOf,
  walkOrder,
} from "./search.query.ts";
import type { SearchSpec } from "./search.schemas.ts";

/**
 * The plan for broad searches: words that match a large share of the library
 * ("jpg" in a photo library). The general plan joins every match to its row
 * to filter and sort it, so its cost grows with the number of matches. This
 * one answers the same page and total from indexes instead:
 *
 * - page: walk the organization's live rows in name order
 *   (files_live_name_idx) and keep those in the FTS index's set of matches,
 *   stopping after one page; cheap when matches are dense, which is when it
 *   is used;
 * - total: the FTS index's own count of matches (no row reads) minus the
 *   matches among rows that are deleted or belong to other organizations,
 *   and, under folder grants, among the rows of the access roots the viewer
 *   cannot read (files_acl_idx); used only while such rows are few.
 *
 * A single term that is also in folder paths takes the same plan: the walk
 * keeps rows holding it or held by a folder holding it, and the total adds
 * to the index's count the live children of those folders that do not hold
 * it themselves (folderChildrenQuery).
 *
 * Only for text-only searches sorted by name; results are identical to the
 * general plan's (same order, same tie-breaks).
 */

/**
 * True when the plan can answer `spec`: terms the index answers in each row
 * alone, or one term alone that is also in folder paths, or no text at all;
 * no filters; sorted by name. With no text, also sorted by date or from the
 * largest file (walking those orders' indexes: walkOrder).
 */
export function broadEligible(spec: SearchSpec): boolean {
  const { short, fts, viaFolders } = termsOf(spec);
  const browseOrder =
    isBrowse(spec) &&
    (spec.sortBy === "updated_at" ||
      spec.sortBy === "created_at" ||
      (spec.sortBy === "size" && spec.sortOrder === "desc"));
  return (
    short.length === 0 &&
    (viaFolders.length === 0 || (viaFolders.length === 1 && fts.length === 0)) &&
    (spec.sortBy === "name" || browseOrder) &&
    !spec.path &&
    !spec.type &&
    spec.minSize === undefined &&
    spec.maxSize === undefined &&
    !spec.startDate &&
    !spec.endDate &&
    spec.tagIds.length === 0
  );
}

/** Every term, matched in the row's own index entry. */
const match = (spec: SearchSpec) => {
  const { fts, viaFolders } = termsOf(spec);
  return ftsExpression([...fts, ...viaFolders]);
};

/** True when `spec` has no text: every live row matches (browsing the library by name). */
export function isBrowse(spec: SearchSpec): boolean {
  const { fts, viaFolders } = termsOf(spec);
  return fts.length === 0 && viaFolders.length === 0;
}

/** Live rows of the organization, counted on a covering index. */
export function liveCountQuery(organizationId: string): Sql {
  return {
    sql: "SELECT count(*) AS n FROM files INDEXED BY files_deleted_idx WHERE organization_id = ? AND is_deleted = 0",
    params: [organizationId],
  };
}

/** Matches in the FTS index over every organization and deleted rows (the index alone). */
export function ftsCountQuery(spec: SearchSpec): Sql {
  return { sql: "SELECT count(*) AS n FROM files_fts WHERE files_fts MATCH ?", params: [match(spec)] };
}

/** An upper bound on the rows of the table, in O(log n). */
export const maxRowidQuery: Sql = { sql: "SELECT coalesce(max(rowid), 0) AS n FROM files", params: [] };

const OUTSIDE =
  "(f.organization_id < ? OR f.organization_id > ? OR (f.organization_id = ? AND f.is_deleted = 1))";

/** How many rows are deleted or of other organizations, counting no further than `cap`. */
export function outsideRowsQuery(organizationId: string, cap: number): Sql {
  return {
    sql: `SELECT count(*) AS n FROM (SELECT 1 FROM files f INDEXED BY files_live_name_idx WHERE ${OUTSIDE} LIMIT ?)`,
    params: [organizationId, organizationId, organizationId, cap],
  };
}

/** Matches among rows that are deleted or of other organizations (to subtract from the FTS count). */
export function outsideMatchesQuery(organizationId: string, spec: SearchSpec): Sql {
  return {
    sql:
      "SELECT count(*) AS n FROM files f INDEXED BY files_live_name_idx " +
      `WHERE ${OUTSIDE} AND +f.rowid IN (SELECT rowid FROM files_fts WHERE files_fts MATCH ?)`,
    params: [organizationId, organizationId, organizationId, match(spec)],
  };
}

/** Live rows of the organization under the access roots `hidden` (a viewer's unreadable ones), up to `cap`. */
export function hiddenRowsQuery(organizationId: string, hidden: readonly string[], cap: number): Sql {
  return {
    sql:
      "SELECT count(*) AS n FROM (SELECT 1 FROM files f INDEXED BY files_acl_idx " +
      "WHERE f.acl_id IN (SELECT value FROM json_each(?)) AND f.organization_id = ? AND f.is_deleted = 0 LIMIT ?)",
    params: [JSON.stringify(hidden), organizationId, cap],
  };
}

/** Matches among the organization's live rows under the access roots `hidden`. */
export function hiddenMatchesQuery(organizationId: string, hidden: readonly string[], spec: SearchSpec): Sql {
  return {
    sql:
      "SELECT count(*) AS n FROM files f INDEXED BY files_acl_idx " +
      "WHERE f.acl_id IN (SELECT value FROM json_each(?)) AND f.organization_id = ? AND f.is_deleted = 0 " +
      "AND +f.rowid IN (SELECT rowid FROM files_fts WHERE files_fts MATCH ?)",
    params: [JSON.stringify(hidden), organizationId, match(spec)],
  };
}

/**
 * Live rows of the organization (readable under `acl`) held by a folder whose
 * path holds the single folder term, and not holding it themselves: what the
 * index's own count misses for such a term.
 */
export function folderChildrenQuery(organizationId: string, spec: SearchSpec, acl?: Sql): Sql {
  const expr = termsOf(spec).viaFolders[0]!;
  return {
    sql:
      "SELECT count(*) AS n FROM files f WHERE f.organization_id = ? AND f.is_deleted = 0 " +
      `AND f.parent_id IN (${FOLDER_MATCHES}) AND +f.rowid NOT IN (${OWN_MATCHES})` +
      (acl ? ` AND ${acl.sql}` : ""),
    params: [organizationId, `path : (${expr})`, expr, ...(acl?.params ?? [])],
  };
}

/**
 * One page in name order, walking the name index and keeping rows in the set
 * of matches (read once from the FTS index into a temporary index; probing
 * FTS5 row by row re-reads the doclists of every probe, far slower for
 * multi-trigram words). Browsing (no text) walks the index of its own order
 * (walkOrder): by size that holds the large files only, so the caller checks
 * that the page is full.
 */
export function walkPageQuery(
  organizationId: string,
  spec: SearchSpec,
  limit: number,
  offset: number,
  acl?: Sql,
  bound?: string,
): Sql {
  const dir = spec.sortOrder === "desc" ? "DESC" : "ASC";
  // The walk stops at the bound's name (walkBoundQuery), ties with it included.
  const range: Sql =
    bound === undefined
      ? { sql: "", params: [] }
      : { sql: `AND f.name COLLATE NOCASE ${dir === "ASC" ? "<=" : ">="} ? `, params: [bound] };
  const { viaFolders } = termsOf(spec);
  const { index, order, range: within } = walkOrder(spec)!;
  const terms: Sql = isBrowse(spec)
    ? { sql: "", params: [] }
    : viaFolders.length === 1
      ? pathCondition(viaFolders[0]!)
      : { sql: `+f.rowid IN (${OWN_MATCHES})`, params: [match(spec)] };
  return {
    sql:
      `SELECT f.id AS id FROM files f INDEXED BY ${index} ` +
      `WHERE f.organization_id = ? AND f.is_deleted = 0 AND ${within} ` +
      range.sql +
      (terms.sql ? `AND ${terms.sql} ` : "") +
      (acl ? `AND ${acl.sql} ` : "") +
      `ORDER BY ${order} LIMIT ? OFFSET ?`,
    params: [organizationId, ...range.params, ...terms.params, ...(acl?.params ?? []), limit, offset],
  };
}

/**
 * The name (without case) of the live row `steps` rows into the
 * organization's name order (from the end when descending), from the name
 * index alone: the bound of a walk of that many rows. None when there are
 * fewer rows.
 */
export function walkBoundQuery(organizationId: string, descending: boolean, steps: number): Sql {
  return {
    sql:
      "SELECT f.name AS name FROM files f INDEXED BY files_live_name_idx " +
      "WHERE f.organization_id = ? AND f.is_deleted = 0 " +
      `ORDER BY f.name COLLATE NOCASE ${descending ? "DESC" : "ASC"} LIMIT 1 OFFSET ?`,
    params: [organizationId, steps],
  };
}
