import { foldedGlobs, foldText, likeContains } from "./fold.ts";
import {
  ftsExpression,
  MAX_TERMS,
  quoted,
  rowFilters,
  type Sql,
  searchOrder,
  shortTermCondition,
  TRIGRAM_MIN,
  termsOf,
  textTerms,
} from "./search.query.ts";
import type { SearchSpec } from "./search.schemas.ts";

/**
 * The plan for searches with terms that are also in folders' paths ("holiday
 * 2019", "breaking bad s03", "2019" under /Photos). A row matches a term
 * through its own name or through the path of the folder holding it, so the
 * general plan builds, for every such term, the set of its rows and of every
 * child of every folder holding it (15–45k rows for a common word at 1M) and
 * intersects the sets. This plan reads fewer sets and checks the other terms
 * on each candidate's text instead (chooseDriver picks the cheapest):
 *
 * - own rows: the rows matching some terms in their own index row, each
 *   row's path checked for the other terms;
 * - children: for a folder term, the children of the folders whose path
 *   holds it, read from files_children_idx (names, no row read), each other
 *   term checked once on the folder's path and, when not there, on the
 *   child's name. A term without "/" is in a row's path exactly when it is
 *   in the folder's path or in the name.
 *
 * Checks run in SQL (containsCondition), case- and accent-insensitively like
 * the index; short terms the index did not resolve are checked as the
 * general plan checks them (shortTermCondition). The page is the general
 * plan's (same filters, folder grants, order and tie-breaks); the total is
 * exact.
 */

/** Matches whose rowid the driver's estimate reads: the rowid of the K-th one estimates their density. */
export const ESTIMATE_AT = 32;
/** Children a folder holds on average, in the driver's estimate (only the choice of driver depends on it). */
export const CHILDREN_PER_FOLDER = 16;

/** One search term as the plan checks it. */
interface Term {
  text: string;
  /** The FTS expression of a term that is long enough for the index. */
  expr?: string;
  /** Its expression is also in some folder's path (Terms.viaFolders). */
  inFolders: boolean;
  /** A short term the index did not resolve (Terms.short): checked by shortTermCondition. */
  scanned: boolean;
}

function termsOfText(spec: SearchSpec): Term[] {
  const { viaFolders, short } = termsOf(spec);
  return textTerms(spec.text, MAX_TERMS).map((text) => {
    const expr = [...text].length >= TRIGRAM_MIN ? quoted(text) : undefined;
    return {
      text,
      expr,
      inFolders: expr !== undefined && viaFolders.includes(expr),
      scanned: short.includes(text),
    };
  });
}

/**
 * True when the plan can answer `spec` (terms resolved by the repository):
 * some term long enough for the index is in folders' paths, no tags (their
 * own plan drives from the tagged files), no term with "/" (one may span
 * the last "/" of a path, which the index does not see).
 */
export function foldersEligible(spec: SearchSpec): boolean {
  if (spec.tagIds.length > 0 || !spec.terms) return false;
  const terms = termsOfText(spec);
  return terms.some((t) => t.inFolders) && terms.every((t) => !t.text.includes("/"));
}

/**
 * `column` contains `term`, case- and accent-insensitively like the index:
 * instr() for a term without case, a LIKE when no letter of it has a
 * non-ASCII variant, else foldedGlobs' patterns (the non-ASCII one only
 * tried on text with non-ASCII characters).
 */
export function containsCondition(column: string, term: string): Sql {
  if (term.toLowerCase() === term.toUpperCase()) return { sql: `instr(${column}, ?) > 0`, params: [term] };
  const globs = foldedGlobs(term);
  if (!globs) return { sql: `${column} LIKE ? ESCAPE '\\'`, params: [likeContains(foldText(term))] };
  const any = globs.ascii.map(() => `${column} GLOB ?`);
  if (globs.nonAscii) any.push(`(length(${column}) <> octet_length(${column}) AND ${column} GLOB ?)`);
  return {
    sql: `(${any.join(" OR ")})`,
    params: [...globs.ascii, ...(globs.nonAscii ? [globs.nonAscii] : [])],
  };
}

const check = (column: string, t: Term): Sql =>
  t.scanned ? shortTermCondition(column, t.text) : containsCondition(column, t.text);

/** Conditions ANDed; "1" when none. */
function all(conds: Sql[]): Sql {
  return { sql: conds.map((c) => c.sql).join(" AND ") || "1", params: conds.flatMap((c) => c.params) };
}

/**
 * The sets the plan reads: the rows matching `own` in their own index row
 * (checked for the terms `ownChecked`), and for each term of `folders` the
 * children of the folders whose path holds it (checked for every other term).
 */
export interface Driver {
  own: string;
  ownChecked: string[];
  folders: string[];
}

/**
 * Relative costs of the plan's steps, per estimated index match, in µs on
 * the 1M-row benchmark with a cold page cache: FTS_MATCH for reading a
 * term's doclists (once for rows, once for folders), ROW_READ for a row
 * read by rowid (the rows of a term and its folders), CHILD for a child
 * read from files_children_idx and checked. Only the choice of sets
 * depends on them.
 */
const FTS_MATCH = 0.2;
const ROW_READ = 1.2;
const CHILD = 0.3;

/**
 * Which sets to read, whichever looks cheapest by `estimate` (an
 * expression's index matches):
 * - with terms only ever in rows' own names: the rows holding all of them,
 *   checked for the rest (no folders: every match holds those terms itself);
 * - one folder term's rows and its folders' children, checked for the
 *   other terms;
 * - the rows holding every term themselves (so few that reading them is
 *   not counted), and the children of each folder term's folders: no row
 *   of a single term is read, but every term's doclists and folders are.
 */
export function chooseDriver(spec: SearchSpec, estimateOnce: (expr: string) => number): Driver {
  const known = new Map<string, number>();
  const estimate = (expr: string) => known.get(expr) ?? known.set(expr, estimateOnce(expr)).get(expr)!;
  const { fts } = termsOf(spec);
  const terms = termsOfText(spec);
  const texts = (pick: (t: Term) => boolean) => terms.filter(pick).map((t) => t.text);
  const inFolders = terms.filter((t) => t.inFolders);
  const options: { cost: () => number; driver: Driver }[] = inFolders.map((t) => ({
    cost: () => estimate(t.expr!) * (2 * FTS_MATCH + ROW_READ) + folderCost(estimate(`path : (${t.expr})`)),
    driver: { own: t.expr!, ownChecked: texts((o) => o !== t), folders: [t.text] },
  }));
  if (fts.length > 0) {
    const own = ftsExpression(fts);
    options.unshift({
      cost: () => estimate(own) * (FTS_MATCH + ROW_READ),
      driver: { own, ownChecked: texts((t) => t.inFolders || !t.expr), folders: [] },
    });
  }
  if (options.length === 1) return options[0]!.driver;
  const each = inFolders.map(
    (t) => 2 * FTS_MATCH * estimate(t.expr!) + folderCost(estimate(`path : (${t.expr})`)),
  );
  options.push({
    cost: () =>
      each.reduce((a, b) => a + b, 0) + (fts.length > 0 ? FTS_MATCH * estimate(ftsExpression(fts)) : 0),
    driver: {
      own: ftsExpression([...fts, ...inFolders.map((t) => t.expr!)]),
      ownChecked: texts((t) => !t.expr),
      folders: inFolders.map((t) => t.text),
    },
  });
  const costs = options.map((o) => o.cost());
  return options[costs.indexOf(Math.min(...costs))]!.driver;
}

/** What reading the children of `folders` folders costs (chooseDriver). */
const folderCost = (folders: number) => folders * (ROW_READ + CHILD * CHILDREN_PER_FOLDER);

/**
 * The folders a child under the path filter may be held by: inside the
 * prefix, or the folder holding the prefix itself. A superset, as a
 * condition on `d.path`; the rows' own filter is exact.
 */
function foldersUnder(path: string | undefined): Sql {
  if (!path) return { sql: "1", params: [] };
  return {
    sql: "((d.path >= ? AND d.path < ?) OR d.path = ?)",
    params: [path, `${path}0`, path.slice(0, path.lastIndexOf("/"))],
  };
}

/** Rowids (`r`) of the rows matching `driver.own` and holding its checked terms, of the organization's live rows. */
function ownRows(organizationId: string, spec: SearchSpec, driver: Driver, terms: Term[]): Sql {
  const filters = rowFilters(spec, true);
  const where = all([
    ...terms.filter((t) => driver.ownChecked.includes(t.text)).map((t) => check("f.path", t)),
    { sql: "f.organization_id = ? AND f.is_deleted = 0", params: [organizationId] },
    { sql: filters.sql.join(" AND ") || "1", params: filters.params },
  ]);
  return {
    sql: `SELECT f.rowid AS r FROM files_fts JOIN files f ON f.rowid = files_fts.rowid WHERE files_fts MATCH ? AND ${where.sql}`,
    params: [driver.own, ...where.params],
  };
}

/**
 * The folders whose path holds `term` (CTE `name`), with whether it holds
 * each of `others` (computed once a folder: MATERIALIZED keeps SQLite from
 * repeating it for every child), and the rowids of their children holding
 * each of `others` in that path or in their name.
 */
function childRows(
  organizationId: string,
  spec: SearchSpec,
  name: string,
  term: Term,
  others: Term[],
): { cte: Sql; rows: Sql } {
  const flags = others.map((t, i) => {
    const c = check("d.path", t);
    return { sql: `, (${c.sql}) AS h${i}`, params: c.params };
  });
  const under = foldersUnder(spec.path);
  const child = all(
    others.map((t, i) => {
      const c = check("c.name", t);
      return { sql: `(${name}.h${i} OR ${c.sql})`, params: c.params };
    }),
  );
  return {
    cte: {
      sql:
        `${name} AS MATERIALIZED (SELECT d.id AS id${flags.map((f) => f.sql).join("")} ` +
        `FROM files_fts JOIN files d ON d.rowid = files_fts.rowid WHERE files_fts MATCH ? AND ${under.sql})`,
      params: [...flags.flatMap((f) => f.params), `path : (${term.expr})`, ...under.params],
    },
    rows: {
      sql:
        `SELECT c.rowid FROM ${name} CROSS JOIN files c INDEXED BY files_children_idx ` +
        `ON c.organization_id = ? AND c.parent_id = ${name}.id AND c.is_deleted = 0 WHERE ${child.sql}`,
      params: [organizationId, ...child.params],
    },
  };
}

/** Rowids (`r`) of every match of `spec` (children not yet filtered by filters and grants). */
function matchesQuery(organizationId: string, spec: SearchSpec, driver: Driver): { with: Sql; body: Sql } {
  const terms = termsOfText(spec);
  const parts = driver.folders.map((text, i) => {
    const term = terms.find((t) => t.text === text)!;
    return childRows(
      organizationId,
      spec,
      `d${i}`,
      term,
      terms.filter((t) => t !== term),
    );
  });
  const own = ownRows(organizationId, spec, driver, terms);
  return {
    with: {
      sql: parts.length ? `WITH ${parts.map((p) => p.cte.sql).join(", ")} ` : "",
      params: parts.flatMap((p) => p.cte.params),
    },
    body: {
      sql: [own.sql, ...parts.map((p) => p.rows.sql)].join(" UNION "),
      params: [...own.params, ...parts.flatMap((p) => p.rows.params)],
    },
  };
}

/** The matches' rows: a WITH clause, and FROM and WHERE with the search's filters and `acl`. */
function matchedRows(
  organizationId: string,
  spec: SearchSpec,
  driver: Driver,
  acl?: Sql,
): { with: Sql; from: Sql } {
  const m = matchesQuery(organizationId, spec, driver);
  const filters = rowFilters(spec, true);
  const where = all([
    { sql: "f.organization_id = ? AND f.is_deleted = 0", params: [organizationId] },
    { sql: filters.sql.join(" AND ") || "1", params: filters.params },
    ...(acl ? [acl] : []),
  ]);
  return {
    with: m.with,
    from: {
      sql: `FROM (${m.body.sql}) m CROSS JOIN files f ON f.rowid = m.r WHERE ${where.sql}`,
      params: [...m.body.params, ...where.params],
    },
  };
}

/** Ids of one window of matches in the search's order, each with the count of all matches. */
export function foldersPageQuery(
  organizationId: string,
  spec: SearchSpec,
  driver: Driver,
  limit: number,
  offset: number,
  acl?: Sql,
): Sql {
  const rows = matchedRows(organizationId, spec, driver, acl);
  const order = searchOrder(spec);
  return {
    sql: `${rows.with.sql}SELECT f.id AS id, count(*) OVER () AS total ${rows.from.sql} ORDER BY ${order.sql} LIMIT ? OFFSET ?`,
    params: [...rows.with.params, ...rows.from.params, ...order.params, limit, offset],
  };
}

/** The count of every match (for a window past the end). */
export function foldersCountQuery(organizationId: string, spec: SearchSpec, driver: Driver, acl?: Sql): Sql {
  const rows = matchedRows(organizationId, spec, driver, acl);
  return {
    sql: `${rows.with.sql}SELECT count(*) AS n ${rows.from.sql}`,
    params: [...rows.with.params, ...rows.from.params],
  };
}

/** The K-th index match of an expression, whose rowid estimates how many there are (chooseDriver). */
export const nthMatchQuery = (expr: string): Sql => ({
  sql: "SELECT rowid AS n FROM files_fts WHERE files_fts MATCH ? LIMIT 1 OFFSET ?",
  params: [expr, ESTIMATE_AT],
});
