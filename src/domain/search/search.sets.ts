import { ftsExpression, MAX_TERMS, OWN_MATCHES, pathMatches, type Sql, textTerms } from "./search.query.ts";
import type { SearchSpec, Terms } from "./search.schemas.ts";

/**
 * Sets of matches for the dense plan's set walks (search.dense.ts): the
 * rowids of a search's matches, read from indexes alone (the FTS index,
 * and the children index for folders' children), as a subquery SQLite
 * builds once per walk. The walk then reads the index of the search's order with
 * `f.rowid IN (set)` tested on each entry before its row is read, so a long
 * stretch of that order without a match (a music library's "01. …" tracks
 * first by name) costs a lookup in the built set per entry instead of a row
 * read (~0.1 against ~3-16 µs).
 */

/**
 * The rows whose name holds every term (the first rank by relevance,
 * search.query.ts relevanceOrder), as the index matches names. Undefined
 * when a term could not be asked of the index (a short one it declined to
 * expand) or matches nothing.
 */
export function nameSet(terms: Terms): Sql | undefined {
  if (terms.none || terms.short.length > 0 || terms.fts.length + terms.viaFolders.length === 0)
    return undefined;
  return { sql: OWN_MATCHES, params: [ftsExpression([...terms.fts, ...terms.viaFolders], "name")] };
}

/**
 * Every match of `spec`'s text (its other conditions left to the walk): the
 * intersection of each term's rows, from the FTS index, with the children
 * of the folders whose path holds a term when some do (`inSomePath`).
 * Undefined when a term has "/" (it may span a folder and a name) or could
 * not be asked of the index, and under a path filter: testing its rows'
 * paths (files_path_idx, ~0.3 µs a row before any term is tested; a GLOB
 * for accents several times that) cost more than the other plans.
 */
export function textSet(
  organizationId: string,
  spec: SearchSpec,
  terms: Terms,
  inSomePath: (expr: string) => boolean,
): Sql | undefined {
  if (textTerms(spec.text, MAX_TERMS).some((t) => t.includes("/"))) return undefined;
  if (spec.path) return undefined;
  if (terms.none || terms.short.length > 0) return undefined;
  const exprs = [...terms.fts, ...terms.viaFolders];
  if (exprs.length === 0) return undefined;
  const own = exprs.filter((e) => !inSomePath(e));
  const sets: Sql[] = exprs.filter((e) => inSomePath(e)).map((e) => pathMatches(organizationId, e));
  if (own.length > 0) sets.unshift({ sql: OWN_MATCHES, params: [ftsExpression(own)] });
  if (sets.length === 1) return sets[0];
  return {
    sql: sets.map((q) => `SELECT * FROM (${q.sql})`).join(" INTERSECT "),
    params: sets.flatMap((q) => q.params),
  };
}

/** An index a set walk reads in a search's order, and the key whose ties it reads to the end. */
export interface SetOrder {
  index: string;
  /** The order's leading key, as SQL on `f` (its ties are sorted afterwards). */
  key: string;
  dir: "ASC" | "DESC";
  /** The index's own condition besides live rows ("1" when none). */
  range: string;
}

/**
 * The index a set walk reads for `spec`'s order: by relevance the names'
 * lengths (the name matches' order, shortest first); by name, the names
 * (directories' own when only they are asked for); by date, the dates.
 * Undefined by size (buckets: search.dense.ts bySize).
 */
export function setOrder(spec: SearchSpec): SetOrder | undefined {
  const dir = spec.sortOrder === "desc" ? "DESC" : "ASC";
  switch (spec.sortBy) {
    case "relevance":
      return { index: "files_live_length_idx", key: "length(f.name)", dir: "ASC", range: "1" };
    case "name":
      return spec.type === "directory"
        ? { index: "files_live_dirs_idx", key: "f.name COLLATE NOCASE", dir, range: "f.type = 'directory'" }
        : { index: "files_live_name_idx", key: "f.name COLLATE NOCASE", dir, range: "1" };
    case "updated_at":
      return { index: "files_live_updated_idx", key: "f.updated_at", dir, range: "1" };
    case "created_at":
      return { index: "files_live_created_idx", key: "f.created_at", dir, range: "1" };
    default:
      return undefined;
  }
}

/** Rowids and keys of the organization's live rows of `set`, in `order` (ties in no useful order). */
export function setWalkQuery(organizationId: string, order: SetOrder, set: Sql): Sql {
  return {
    sql:
      `SELECT f.rowid, ${order.key} FROM files f INDEXED BY ${order.index} ` +
      `WHERE f.organization_id = ? AND f.is_deleted = 0 AND ${order.range} AND f.rowid IN (${set.sql}) ` +
      `ORDER BY ${order.key} ${order.dir}`,
    params: [organizationId, ...set.params],
  };
}
