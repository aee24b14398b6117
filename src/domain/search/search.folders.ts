import { termCondition } from "./search.contains.ts";
import {
  directoriesByPath,
  ftsExpression,
  isShortTerm,
  lettersOf,
  MAX_TERMS,
  rowFilters,
  type Sql,
  searchOrder,
  termExpression,
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
    const expr = isShortTerm(text) ? undefined : termExpression(text);
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
  // Directories only: the general plan matches their own paths, with no folder's children to read.
  if (spec.tagIds.length > 0 || !spec.terms || directoriesByPath(spec)) return false;
  const terms = termsOfText(spec);
  return terms.some((t) => t.inFolders) && terms.every((t) => !t.text.includes("/"));
}

/** `column` holds `t` as the index matches it, under `spec`'s letters (lettersOf). */
const check = (column: string, t: Term, spec: SearchSpec): Sql =>
  termCondition(column, t.text, t.scanned, lettersOf(spec));

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
 * Relative costs of the plan's steps, in µs, fitted to the 1M-row benchmark
 * with a cold page cache (its queries take turns evicting each other's
 * pages): FTS_MATCH per index match of a term read from its doclists (once
 * for rows, once for folders), ROW_READ per row read by rowid and checked,
 * FOLDER per folder whose children are read (its row, its children's index
 * pages, ~20 children checked). Only the choice of sets depends on them.
 */
const FTS_MATCH = 0.2;
const ROW_READ = 3;
const FOLDER = 14;

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
const folderCost = (folders: number) => folders * FOLDER;

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
function ownRows(
  organizationId: string,
  spec: SearchSpec,
  driver: Driver,
  terms: Term[],
  folderSets: string[],
): Sql {
  const filters = rowFilters(spec, true);
  const where = all([
    ...folderSets.map((name) => ({
      sql: `(f.parent_id IS NULL OR f.parent_id NOT IN (SELECT id FROM ${name}))`,
      params: [],
    })),
    ...terms.filter((t) => driver.ownChecked.includes(t.text)).map((t) => check("f.path", t, spec)),
    { sql: "f.organization_id = ? AND f.is_deleted = 0", params: [organizationId] },
    { sql: filters.sql.join(" AND ") || "1", params: filters.params },
  ]);
  return {
    sql: `SELECT f.rowid AS r, f.acl_id AS acl_id FROM files_fts JOIN files f ON f.rowid = files_fts.rowid WHERE files_fts MATCH ? AND ${where.sql}`,
    params: [driver.own, ...where.params],
  };
}

/**
 * The folders whose path holds `term` (CTE `name`), with whether it holds
 * each of `others` (computed once a folder: MATERIALIZED keeps SQLite from
 * repeating it for every child), and their children (`r`, acl_id)
 * holding each of `others` in that path or in their name, within the
 * search's filters. Without size, date or type filters no child's row is
 * read: files_children_idx holds its name and acl_id, and its path is the
 * folder's path and its name.
 */
function childRows(
  organizationId: string,
  spec: SearchSpec,
  name: string,
  term: Term,
  others: Term[],
  earlier: string[],
): { cte: Sql; rows: Sql } {
  const flags = others.map((t, i) => {
    const c = check("d.path", t, spec);
    return { sql: `, (${c.sql}) AS h${i}`, params: c.params };
  });
  const under = foldersUnder(spec.path);
  const path = `(${name}.path || '/' || f.name)`;
  const filters = rowFilters({ ...spec, path: undefined }, true);
  const where = all([
    ...others.map((t, i) => {
      const c = check("f.name", t, spec);
      return { sql: `(${name}.h${i} OR ${c.sql})`, params: c.params };
    }),
    ...(spec.path
      ? [
          {
            sql: `${path} >= ? AND ${path} < ? AND (${path} = ? OR ${path} >= ?)`,
            params: [spec.path, `${spec.path}0`, spec.path, `${spec.path}/`],
          },
        ]
      : []),
    { sql: filters.sql.join(" AND ") || "1", params: filters.params },
  ]);
  return {
    cte: {
      sql:
        `${name} AS MATERIALIZED (SELECT d.id AS id, d.path AS path${flags.map((f) => f.sql).join("")} ` +
        `FROM files_fts JOIN files d ON d.rowid = files_fts.rowid WHERE files_fts MATCH ? AND ${under.sql}` +
        `${earlier.map((e) => ` AND d.id NOT IN (SELECT id FROM ${e})`).join("")})`,
      params: [...flags.flatMap((f) => f.params), `path : (${term.expr})`, ...under.params],
    },
    rows: {
      sql:
        `SELECT f.rowid, f.acl_id FROM ${name} CROSS JOIN files f INDEXED BY files_children_idx ` +
        `ON f.organization_id = ? AND f.parent_id = ${name}.id AND f.is_deleted = 0 WHERE ${where.sql}`,
      params: [organizationId, ...where.params],
    },
  };
}

/**
 * Every match of `spec` (`r`, acl_id), within its filters, before
 * folder grants; each once: a folder already read for an earlier term is
 * not read again (its children pass the same checks either way), and the
 * own rows leave out the children of the folders read (they are there).
 */
function matchesQuery(organizationId: string, spec: SearchSpec, driver: Driver): { with: Sql; body: Sql } {
  const terms = termsOfText(spec);
  const names = driver.folders.map((_, i) => `d${i}`);
  const parts = driver.folders.map((text, i) => {
    const term = terms.find((t) => t.text === text)!;
    const others = terms.filter((t) => t !== term);
    return childRows(organizationId, spec, names[i]!, term, others, names.slice(0, i));
  });
  const own = ownRows(organizationId, spec, driver, terms, names);
  return {
    with: {
      sql: parts.length ? `WITH ${parts.map((p) => p.cte.sql).join(", ")} ` : "",
      params: parts.flatMap((p) => p.cte.params),
    },
    body: {
      sql: [own.sql, ...parts.map((p) => p.rows.sql)].join(" UNION ALL "),
      params: [...own.params, ...parts.flatMap((p) => p.rows.params)],
    },
  };
}

/**
 * The matches (`f`: r, acl_id) readable under `acl`, as a WITH clause
 * and a FROM … WHERE.
 */
function matches(
  organizationId: string,
  spec: SearchSpec,
  driver: Driver,
  acl?: Sql,
): { with: Sql; from: Sql } {
  const m = matchesQuery(organizationId, spec, driver);
  return {
    with: m.with,
    from: {
      sql: `FROM (${m.body.sql}) f WHERE ${acl?.sql ?? "1"}`,
      params: [...m.body.params, ...(acl?.params ?? [])],
    },
  };
}

/**
 * Ids of one window of matches in the search's order, each with the count
 * of all matches. (Ranking the matches by name from the sets' own columns
 * and reading only the rows within the window's end was no faster: the
 * own rows are in the cache by then, and children's rows share pages.)
 */
export function foldersPageQuery(
  organizationId: string,
  spec: SearchSpec,
  driver: Driver,
  limit: number,
  offset: number,
  acl?: Sql,
): Sql {
  const m = matches(organizationId, spec, driver, acl);
  const order = searchOrder(spec);
  return {
    sql:
      `${m.with.sql}SELECT f.id AS id, count(*) OVER () AS total ` +
      `FROM (SELECT f.r AS r ${m.from.sql}) m CROSS JOIN files f ON f.rowid = m.r ORDER BY ${order.sql} LIMIT ? OFFSET ?`,
    params: [...m.with.params, ...m.from.params, ...order.params, limit, offset],
  };
}

/** The count of every match (for a window past the end). */
export function foldersCountQuery(organizationId: string, spec: SearchSpec, driver: Driver, acl?: Sql): Sql {
  const m = matches(organizationId, spec, driver, acl);
  return {
    sql: `${m.with.sql}SELECT count(*) AS n ${m.from.sql}`,
    params: [...m.with.params, ...m.from.params],
  };
}

/** The K-th index match of an expression, whose rowid estimates how many there are (chooseDriver). */
export const nthMatchQuery = (expr: string): Sql => ({
  sql: "SELECT rowid AS n FROM files_fts WHERE files_fts MATCH ? LIMIT 1 OFFSET ?",
  params: [expr, ESTIMATE_AT],
});
