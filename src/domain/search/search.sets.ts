import { foldText, type NameLetters } from "./fold.ts";
import { containsCondition } from "./search.contains.ts";
import {
  andClause,
  FOLDER_MATCHES,
  ftsExpression,
  isShortTerm,
  MAX_TERMS,
  OWN_MATCHES,
  pathMatches,
  pathRange,
  quoted,
  SIZE_BUCKET,
  type Sql,
  TRIGRAM_MIN,
  termExpression,
  textTerms,
} from "./search.query.ts";
import type { SearchSpec, Terms } from "./search.schemas.ts";
import type { Span } from "./search.span.ts";

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
 * search.query.ts relevanceOrder), as the index matches names; `within`
 * the spans of rowids a path filter keeps (search.dense.ts pathSpans: its
 * folder's descendants and its own row), those rowids alone. Undefined when
 * a term could not be asked of the index (a short one it declined to
 * expand) or matches nothing.
 */
export function nameSet(terms: Terms, within?: readonly Span[]): Sql | undefined {
  if (terms.none || terms.short.length > 0 || terms.fts.length + terms.viaFolders.length === 0)
    return undefined;
  const expr = ftsExpression([...terms.fts, ...terms.viaFolders], "name");
  if (!within) return { sql: OWN_MATCHES, params: [expr] };
  // One range of rowids a SELECT, FTS5 reading its doclists within it alone. BigInt: a number binds
  // as a REAL, and FTS5 then reads the whole doclist (search.span.ts).
  return {
    sql: within.map(() => `${OWN_MATCHES} AND rowid BETWEEN ? AND ?`).join(" UNION ALL "),
    params: within.flatMap((s) => [expr, BigInt(s.lo), BigInt(s.hi)]),
  };
}

/**
 * Every match of `text` (`terms`, its terms resolved; the search's other
 * conditions left to the walk): the intersection of each term's rows, from
 * the FTS index, with the children of the folders whose path holds a term
 * when some do (`inSomePath`). Undefined when a term has "/" (it may span a
 * folder and a name) or could not be asked of the index.
 */
export function textSet(
  organizationId: string,
  text: string,
  terms: Terms,
  inSomePath: (expr: string) => boolean,
): Sql | undefined {
  if (textTerms(text, MAX_TERMS).some((t) => t.includes("/"))) return undefined;
  if (terms.none || terms.short.length > 0) return undefined;
  const own: string[] = [];
  const sets: Sql[] = [];
  for (const expr of [...terms.fts, ...terms.viaFolders])
    if (inSomePath(expr)) sets.push(pathMatches(organizationId, expr));
    else own.push(expr);
  if (own.length > 0) sets.unshift({ sql: OWN_MATCHES, params: [ftsExpression(own)] });
  if (sets.length === 0) return undefined;
  if (sets.length === 1) return sets[0];
  return {
    sql: sets.map((q) => `SELECT * FROM (${q.sql})`).join(" INTERSECT "),
    params: sets.flatMap((q) => q.params),
  };
}

/**
 * Every match of `text` as a condition an index's entry is tested by
 * (textSet's rows, without building the children of folders into a set):
 * the names holding the terms no folder's path holds, from the FTS index;
 * for each other term, its own index matches, or a rowid within the spans
 * `rowsUnder` gives for the folders whose path holds it ("photos": the
 * ~176k rows under /Photos, tested by two comparisons instead of a set
 * built from the children of its ~8k folders). Undefined when a term is
 * short or has "/", or `rowsUnder` has no spans for one.
 */
export function spannedMatch(
  text: string,
  inSomePath: (expr: string) => boolean,
  rowsUnder: (term: string) => Sql | undefined,
): Sql | undefined {
  const terms = folderTerms(text, inSomePath);
  if (!terms || terms.length === 0 || terms.some((t) => t.term.includes("/"))) return undefined;
  const conds: Sql[] = [];
  const own = terms.filter((t) => !t.folders).map((t) => termExpression(t.term));
  if (own.length > 0) conds.push(inSet({ sql: OWN_MATCHES, params: [ftsExpression(own)] }));
  for (const { term, folders } of terms) {
    if (!folders) continue;
    const under = rowsUnder(term);
    if (!under) return undefined;
    conds.push({
      sql: `(f.rowid IN (${OWN_MATCHES}) OR ${under.sql})`,
      params: [termExpression(term), ...under.params],
    });
  }
  return { sql: conds.map((c) => c.sql).join(" AND "), params: conds.flatMap((c) => c.params) };
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
 * (directories' own when only they are asked for); by date, the dates; by
 * size, largest first, the size buckets.
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
    case "size":
      // Largest first, the buckets of sizes (migration 0021): a bucket's rows are all larger than
      // the next one's, and its ties are sorted with the page. Smallest first, the bucket of empty
      // files (most of a library) comes first and ties all the way: search.dense.ts bySize.
      return dir === "DESC"
        ? { index: "files_live_size_bucket_idx", key: SIZE_BUCKET, dir, range: "1" }
        : undefined;
    default:
      return undefined;
  }
}

/** The rows of `set` (a subquery of rowids), as a condition on `f` an index's entry can be tested by. */
export const inSet = (set: Sql): Sql => ({ sql: `f.rowid IN (${set.sql})`, params: set.params });

/** The columns a set walk reads: rowid and key, and with `texted` a row's path, name and whether a directory. */
const walkColumns = (order: SetOrder, texted: boolean) =>
  `f.rowid, ${order.key}${texted ? ", f.path, f.name, f.type = 'directory'" : ""}`;

/**
 * Rowids and keys of the organization's live rows passing `match` (inSet, or
 * folderMatch: conditions on the columns `order`'s index holds, so that an
 * entry is tested before its row is read) and `conditions` (on the row, read
 * only for an entry `match` keeps), in `order` (ties in no useful order);
 * with `texted`, each row's path, name and whether a directory too.
 */
export function setWalkQuery(
  organizationId: string,
  order: SetOrder,
  match: Sql,
  conditions?: Sql,
  texted = false,
): Sql {
  const row = andClause(conditions);
  return {
    sql:
      `SELECT ${walkColumns(order, texted)} FROM files f INDEXED BY ${order.index} ` +
      `WHERE f.organization_id = ? AND f.is_deleted = 0 AND ${order.range} AND ${match.sql}${row.sql} ` +
      `ORDER BY ${order.key} ${order.dir}`,
    params: [organizationId, ...match.params, ...row.params],
  };
}

/**
 * The same rows as setWalkQuery over `set` (a subquery of rowids), read the
 * other way round: each row of the set by its rowid, then sorted (no index
 * of the order walked). For a set of a few rows, where the walk would pass
 * every entry of the order's index that the set lacks (~0.06 µs each: ~60
 * ms over 1M rows for the one name holding "photos").
 */
export function setRowsQuery(organizationId: string, order: SetOrder, set: Sql, conditions?: Sql): Sql {
  const row = andClause(conditions);
  return {
    sql:
      `SELECT ${walkColumns(order, false)} FROM files f NOT INDEXED WHERE f.rowid IN (${set.sql}) ` +
      `AND f.organization_id = ? AND f.is_deleted = 0 AND ${order.range}${row.sql} ORDER BY ${order.key} ${order.dir}`,
    params: [...set.params, organizationId, ...row.params],
  };
}

/**
 * The live directories at or under the folder `path` (rowids, ids and paths), from
 * the FTS index's paths of directories (the folder's path as a phrase; the
 * range then checked on each row found). Undefined for a path too short
 * for the index.
 */
export function foldersUnderQuery(organizationId: string, path: string): Sql | undefined {
  if ([...foldText(path)].length < TRIGRAM_MIN) return undefined;
  const range = pathRange(path, true);
  return {
    sql:
      "SELECT f.rowid AS rowid, f.id AS id, f.path AS path FROM files_fts JOIN files f ON f.rowid = files_fts.rowid " +
      `WHERE files_fts MATCH ? AND f.organization_id = ? AND f.is_deleted = 0 AND f.type = 'directory' AND ${range.sql}`,
    params: [`path : ${quoted(path)}`, organizationId, ...range.params],
  };
}

/**
 * A term of a folder walk: the term as typed, and the folders whose path
 * holds it (a subquery of ids; none when absent), or instead `rows`, the
 * rows under those folders as a condition on the entry (search.span.ts
 * spansCondition).
 */
export interface FolderTerm {
  term: string;
  folders?: Sql;
  rows?: Sql;
}

/** Rows whose folder is one of `folders` (a subquery of ids), as a condition on `f`. */
export const inFolders = (folders: Sql): Sql => ({
  sql: `f.parent_id IN (${folders.sql})`,
  params: folders.params,
});

/** Ids as a subquery. */
export const idList = (ids: readonly string[]): Sql => ({
  sql: "SELECT value FROM json_each(?)",
  params: [JSON.stringify(ids)],
});

/**
 * Each term of `text` with the folders whose path holds it, from the FTS
 * index's paths of directories (FOLDER_MATCHES); none when `inSomePath`
 * says no folder's does. Undefined when a term is too short for the index,
 * or with `leaveShort`, such terms left out (the caller tests them on the
 * rows) and undefined only when every term is.
 */
export function folderTerms(
  text: string,
  inSomePath: (expr: string) => boolean,
  leaveShort = false,
): FolderTerm[] | undefined {
  const out: FolderTerm[] = [];
  for (const term of textTerms(text, MAX_TERMS)) {
    // A short term's folders are those of up to hundreds of trigrams ("e": every folder, from
    // ~300 doclists): more than the walk they would save.
    if (isShortTerm(term)) {
      if (leaveShort) continue;
      return undefined;
    }
    const expr = termExpression(term);
    out.push({
      term,
      folders: inSomePath(expr) ? { sql: FOLDER_MATCHES, params: [`path : (${expr})`] } : undefined,
    });
  }
  return leaveShort && out.length === 0 ? undefined : out;
}

/**
 * For a walk of files_live_name_idx (which holds each row's parent,
 * migration 0022: tested on the entry, no row read), the rows whose folder
 * and name together hold every term: for each, the row's folder is one of
 * the term's folders or its name holds it. `within`: only the rows it
 * holds (a condition on the entry: their folder one of a list, or their
 * rowid within a folder's span), or its `self` row (the path filter's own,
 * when its path holds every term).
 */
export function folderMatch(
  terms: readonly FolderTerm[],
  letters: NameLetters,
  within?: { rows: Sql; self?: number },
): Sql {
  const conds: Sql[] = terms.map(({ folders, rows, term }) => {
    const named = containsCondition("f.name", term, letters);
    const under = rows ?? (folders && inFolders(folders));
    if (!under) return named;
    return { sql: `(${under.sql} OR ${named.sql})`, params: [...under.params, ...named.params] };
  });
  if (within) conds.unshift(within.rows);
  const match: Sql = {
    sql: conds.map((c) => c.sql).join(" AND ") || "1",
    params: conds.flatMap((c) => c.params),
  };
  return within?.self === undefined
    ? match
    : { sql: `((${match.sql}) OR f.rowid = ?)`, params: [...match.params, within.self] };
}
