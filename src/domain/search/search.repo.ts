import type Database from "better-sqlite3";
import type { Statement } from "better-sqlite3";
import { changeWatch } from "../../db/change-watch.ts";
import { foldText, type NameLetters } from "./fold.ts";
import {
  broadEligible,
  folderChildrenQuery,
  ftsCountQuery,
  hiddenMatchesQuery,
  hiddenRowsQuery,
  isBrowse,
  liveCountQuery,
  maxRowidQuery,
  outsideMatchesQuery,
  outsideRowsQuery,
  walkBoundQuery,
  walkPageQuery,
} from "./search.broad.ts";
import {
  createDensePlan,
  denseEligible,
  type Folder,
  pathSpans,
  SAMPLE_WINDOWS,
  type SamplePart,
  type SampleRow,
  samplePart,
  sampleRow,
  sampleRowsQuery,
  sampleScale,
  selfRowidsQuery,
  WINDOW_ROWS,
  walkToPage,
} from "./search.dense.ts";
import {
  chooseDriver,
  ESTIMATE_AT,
  foldersCountQuery,
  foldersEligible,
  foldersPageQuery,
  nthMatchQuery,
} from "./search.folders.ts";
import {
  LARGE_PLAN_MAX,
  largeCountQuery,
  largeEligible,
  largePageQuery,
  largeTotalQuery,
} from "./search.large.ts";
import { EXACT_TOTAL_BOUND } from "./search.limits.ts";
import { registerFoldContains, rowMatcher } from "./search.match.ts";
import {
  countQuery,
  countUpTo,
  type Expand,
  ftsExpression,
  isShortTerm,
  MAX_TERMS,
  pageQuery,
  phraseTrigrams,
  type RowidRange,
  type Sql,
  sizeBuckets,
  spellingsOf,
  splitTerms,
  termExpression,
  termsOf,
  textTerms,
} from "./search.query.ts";
import {
  intersectWords,
  mergeRuns,
  namedDirPathsQuery,
  namedDirs,
  ownMatches,
  ownRowidsQuery,
  rowidSet,
  type WordRows,
} from "./search.runs.ts";
import type { SearchSpec } from "./search.schemas.ts";
import { foldersUnderQuery, inSet, spannedMatch, textSet } from "./search.sets.ts";
import {
  heldByEveryWord,
  sizeRangeEligible,
  sizeRangePageQuery,
  sizeRangeRowidsQuery,
  sizeRangeRowsQuery,
  sizeRangeSetEligible,
  sizeRangeTotalQuery,
} from "./search.sizes.ts";
import {
  pathHoldsQuery,
  pureSpan,
  type Span,
  spanEligible,
  spanQuery,
  spanSet,
  spanSetCountQuery,
  spansCondition,
  spanTerms,
} from "./search.span.ts";
import {
  checkedSpec,
  setCheckedPageQuery,
  setCheckedTotalQuery,
  subtreeCountQuery,
  subtreeEligible,
  subtreePageQuery,
  subtreeTotalQuery,
} from "./search.subtree.ts";

/**
 * How far past its expected length the broad plan's walk may go (a
 * multiple of it, and at least SearchPlanOptions.broadMinBound rows) before
 * the general plan answers instead.
 */
const BOUND_FACTOR = 3;
/** How far past that bound the dense plan's sample may place the page before the walk is not tried. */
const SAMPLED_WALK_OVER = 2;
/** Prepared statements kept per SQL text; a search has few distinct shapes. */
const STATEMENT_CACHE_SIZE = 256;
/**
 * Most trigrams a short term is OR-ed from. A two-character term rarely
 * begins more than a few hundred; a single common letter begins thousands,
 * and is dense enough that scanning rows in order finds a page at once.
 */
export const MAX_EXPANSION = 400;
/**
 * Most rows the folder-subtree plan reads per index match of the least
 * common term (its estimate, which counts a term's own matches only; the
 * other plans also read the children of folders holding it).
 */
const SUBTREE_ROWS_PER_MATCH = 2;
/** The same, for a range of sizes (files_live_size_bucket_idx: each row read costs about as much as a match). */
const SIZES_ROWS_PER_MATCH = 0.5;
/**
 * Most rows the size-range plan reads per index match of the least common
 * term: a row of the range costs a lookup in the set of matches (its row is
 * read only when it is one), ~0.5 µs at 1M rows, against ~3 µs a match
 * read by the other plans; measured 60-110 ms for ranges of 59k rows where
 * the other plans took 120-390.
 */
const SIZE_RANGE_ROWS_PER_MATCH = 4;
/** Own index matches of the size-range plan's word counted at most (the plan may read 4 range rows each). */
const SIZES_COUNT_BOUND = 65_536;
/** Rows of a size range the plan reads the rowids of, at most (~0.07 µs each, from the index alone). */
const SIZES_RANGE_MAX = 262_144;
/** Past plan.sizeOwnMax, the range's rows (~1.2-2 µs each) are read when at most this many. */
const SIZES_RANGE_READ_MAX = 32_768;
/**
 * Rows of the range the size-range plan reads the rowids of for each row of
 * its word with the fewest (~0.07 µs each, against ~1.5-3 µs for each of
 * that word's rows read by the other plans: even at ~30).
 */
const SIZES_RANGE_PER_ROW = 32;
/** How far past its bound the sample may put a range's rows before the range is not read at all. */
const SIZES_SAMPLED_OVER = 2;
/** Rowids of size ranges kept until the database changes, summed (4 bytes each: 4 MiB a search thread). */
const SIZE_RANGES_KEPT = 1_048_576;
/** Directories the folder walk's lists keep at most, summed (~150 bytes each: ~15 MB a search thread). */
const FOLDERS_KEPT = 100_000;
/** Rows within a folder's span few enough for its term to drive the span plan without counting the others'. */
const SPAN_FEW_MATCHES = 1000;
/**
 * How far a term's matches within a span may be estimated above
 * plan.spanMaxMatches (spread evenly over the library's rowids) for them to
 * be counted: terms gather in some folders.
 */
const SPAN_ESTIMATE_FACTOR = 4;
/** How many more rows than plan.spanMaxMatches the span plan may read once the dense plan declined. */
const SPAN_LATE_FACTOR = 4;
/** Most directories whose name holds a term for their spans to stand for the rows holding it through its folders. */
const NAMED_FOLDERS_MAX = 64;
/** Index matches of its own a word may have for the runs plan (each rowid read into a set). */
const RUNS_MAX_OWN = 50_000;
/** Directories a word's name may be in for the runs plan (each one's rows counted once for its run). */
const RUNS_MAX_DIRS = 4096;
/** Rows the runs plan reads at most (each checked on its path): past them, the folders plan. */
const RUNS_MAX_ROWS = 20_000;
/** How far past RUNS_MAX_ROWS the fewest rows of a word may be before the plan declines unread. */
const RUNS_FEWEST_FACTOR = 4;
/** Runs the search thread keeps for the words searched, summed (16 bytes each). */
const RUNS_KEPT = 50_000;
/** Past every code point: the end of a range of terms beginning with a prefix. */
const LAST = String.fromCodePoint(0x10ffff);

/** When the dense (search.dense.ts) and broad (search.broad.ts) plans are used instead of the general one. */
export interface SearchPlanOptions {
  /** Whether the broad plan may be used at all. */
  broad: boolean;
  /** Fewest FTS matches for which it is considered. */
  broadMinMatches: number;
  /** Most rows the name walk may expect to read for one page. */
  broadMaxWalk: number;
  /** Fewest rows the name walk may read before it gives up (it may read BOUND_FACTOR times what it expects). */
  broadMinBound: number;
  /** Most deleted or other-organization rows its count may have to look at. */
  broadMaxOutside: number;
  /** Whether the dense plan (search.dense.ts) may be used at all. */
  dense: boolean;
  /**
   * Most rows of the names holding every term (by relevance) that it reads
   * from their set and sorts, instead of walking the names' lengths past the
   * rows the set lacks: a row costs ~2-3 µs read, an entry passed ~0.06, so
   * a page of 50 breaks even at ~1,000 rows.
   */
  denseFewRows: number;
  /** Fewest matches in its sample for which it is considered (fewer make a poor estimate). */
  denseMinHits: number;
  /** Most rows its walk may expect to read for one page (each costs a row read and a test). */
  denseMaxWalk: number;
  /** Smallest estimated total for which it is used: below, totals are counted exactly. */
  denseMinTotal: number;
  /**
   * Names its folder walk by name reads (~0.4 µs each) before it starts
   * again from the first name a match can have (search.dense.ts nameBound).
   */
  denseFolderWalkFirst: number;
  /**
   * Most rows that walk reads to test a term too short for the index beside
   * longer ones ("12" of "copy 12": ~2-25 µs each with the entries passed
   * between them) before it gives up to the set walk; and the most rows
   * holding the longer terms the sample may place before the page for it
   * to try (it overstates them: the walk starts from the first name a match
   * can have).
   */
  denseShortTermReads: number;
  denseShortTermExpected: number;
  /**
   * Most matches the sample may expect for its set walks (search.sets.ts):
   * SQLite builds the set, ~0.5-1 µs a member, before the walk reads its
   * first row.
   */
  denseSetMax: number;
  /** Whether the folder-terms plan (search.folders.ts) may be used. */
  folders: boolean;
  /** Whether the large-files plan (search.large.ts) may be used. */
  large: boolean;
  /** Whether the plan for several words of folders' names (search.runs.ts) may be used. */
  runs: boolean;
  /** Whether the plan for text within a range of sizes (search.sizes.ts) may be used. */
  sizes: boolean;
  /** Whether that plan may read the range and the words as rowids before building a set of matches. */
  sizeRowids: boolean;
  /**
   * Own index matches of a word whose rowids it reads, at most (~0.09 µs
   * each, ~45 ms at the bound): ".jpg" (420k names) from 100 to 400 bytes on
   * a library of camera folders, 182 ms reading the range's 119k rows, 65
   * intersecting the rowids.
   */
  sizeOwnMax: number;
  /** Whether the plan for text under a folder within its span of rowids (search.span.ts) may be used. */
  span: boolean;
  /**
   * Most descendants a folder's span is read for (~0.12 µs each, once until
   * the database changes): a folder holding most of a library ("photos",
   * 652k rows under /Tree/Photos, ~80 ms once) stands for its rows by two
   * comparisons, where its set or an exact plan costs ~350 ms every search.
   */
  spanMaxRows: number;
  /** Most rows holding the driving term within the span that the plan reads (~1 µs each, read and checked). */
  spanMaxMatches: number;
  /** Whether the plan for common terms within a folder (search.subtree.ts) may be used. */
  subtree: boolean;
  /** Fewest index matches of the least common term (estimated) for which it is considered. */
  subtreeMinMatches: number;
  /**
   * Rows of a folder or a span of dates few enough for it to read them
   * whatever the terms' matches (~1.5 µs each, counted from the index
   * first): "19" created before 2024 in a library indexed since read ~300
   * ms of matches to find none.
   */
  subtreeFewRows: number;
}

export const DEFAULT_PLAN: SearchPlanOptions = {
  broad: true,
  broadMinMatches: 2000,
  broadMaxWalk: 20_000,
  broadMinBound: 4096,
  broadMaxOutside: 50_000,
  dense: true,
  denseFewRows: 1024,
  denseMinHits: 16,
  denseMaxWalk: 3000,
  denseMinTotal: EXACT_TOTAL_BOUND,
  denseFolderWalkFirst: 16_384,
  denseShortTermReads: 2048,
  denseShortTermExpected: 6144,
  denseSetMax: 250_000,
  folders: true,
  large: true,
  runs: true,
  sizes: true,
  sizeRowids: true,
  sizeOwnMax: 524_288,
  span: true,
  spanMaxRows: 1_048_576,
  spanMaxMatches: 10_000,
  subtree: true,
  subtreeMinMatches: 50_000,
  subtreeFewRows: 4096,
};

/**
 * What a viewer may see: the folder-grants condition on `f.acl_id` (none
 * for a viewer who reads every row), and, when known, the access roots
 * whose rows are exactly what it hides (the viewer reads the top's list and
 * every other root; search.broad.ts subtracts them from index-only counts).
 */
export interface Scope {
  acl?: Sql;
  hidden?: readonly string[];
}

export interface SearchPage {
  ids: string[];
  total: number;
  /** True when `total` is the dense plan's estimate (above `denseMinTotal`); false when exact. */
  estimated: boolean;
  /** Which plan answered (for logs and tests). */
  plan: "general" | "broad" | "dense" | "folders" | "large" | "runs" | "sizes" | "span" | "subtree";
}

/** A plan reading a range of rows (search.repo.ts rangePage): one page, or undefined when it declines. */
type RangePlan = (
  org: string,
  spec: SearchSpec,
  limit: number,
  offset: number,
  acl?: Sql,
) => SearchPage | undefined;

/**
 * Values computed by key and kept until the database changes (changeWatch),
 * at most 256 at once, and, with `bound`, at most `bound.most` of their
 * summed weight: `get(key, compute)`.
 */
export function keptUntilChange<V>(
  sqlite: Database.Database,
  bound?: { weight: (value: V) => number; most: number },
): (key: string, compute: () => V) => V {
  const seen = changeWatch(sqlite);
  const kept = new Map<string, V>();
  let weight = 0;
  return (key, compute) => {
    if (seen.changed()) {
      kept.clear();
      weight = 0;
    }
    if (kept.has(key)) return kept.get(key) as V;
    const value = compute();
    const w = bound?.weight(value) ?? 0;
    // A value heavier than the bound alone is not kept.
    if (bound && w > bound.most) return value;
    if (kept.size >= 256 || (bound && weight + w > bound.most)) {
      kept.clear();
      weight = 0;
    }
    kept.set(key, value);
    weight += w;
    return value;
  };
}

/** The search queries (SQL built by search.query.ts and search.broad.ts), with statements cached. */
export function createSearchRepo(db: { $client: Database.Database }, plan: SearchPlanOptions = DEFAULT_PLAN) {
  const sqlite = db.$client;
  const statements = new Map<string, Statement>();
  const prepared = (q: Sql): Statement => {
    let stmt = statements.get(q.sql);
    if (!stmt) {
      if (statements.size >= STATEMENT_CACHE_SIZE) statements.delete(statements.keys().next().value!);
      stmt = sqlite.prepare(q.sql);
      statements.set(q.sql, stmt);
    }
    return stmt;
  };
  registerFoldContains(sqlite);
  const kindsOf = sqlite
    .prepare<[string], string>("SELECT kind FROM org_name_letters WHERE organization_id = ?")
    .pluck();
  /**
   * What the organization's names hold (migration 0024) that tests of terms
   * in SQL must cover, kept until the database changes (an insert or rename
   * that notes a kind is a change).
   */
  const lettersKept = keptUntilChange<NameLetters>(sqlite);
  const nameLetters = (organizationId: string): NameLetters =>
    lettersKept(organizationId, () => {
      const kinds = kindsOf.all(organizationId);
      return { rare: kinds.includes("rare"), marks: kinds.includes("marks") };
    });
  const termsFrom = sqlite.prepare<[string, string, number], { term: string }>(
    "SELECT term FROM files_fts_terms WHERE term >= ? AND term < ? LIMIT ?",
  );
  /**
   * The index's trigrams beginning with a short term. The tokenizer folds
   * case and Latin diacritics by its own tables; the term lower-cased, its
   * spellings with Greek and Cyrillic accents (spellingsOf) and the term
   * fully folded are looked up, so no folding misses. Kept until
   * the database changes (a trigram added since may begin it): fts5vocab
   * counts each trigram's documents as it lists it, so a common character
   * reads the doclists of every trigram it begins ("o": 80 of them, ~12 ms
   * at 1M rows; "." ~16 ms), and one search may expand a term several times.
   */
  const expansions = keptUntilChange<string[] | undefined>(sqlite);
  const expand: Expand = (term) =>
    expansions(term, () => {
      const found = new Set<string>();
      const lower = term.toLowerCase();
      for (const prefix of new Set([lower, ...(spellingsOf(lower) ?? []), foldText(term)])) {
        for (const { term: t } of termsFrom.all(prefix, prefix + LAST, MAX_EXPANSION + 1)) found.add(t);
        if (found.size > MAX_EXPANSION) return undefined;
      }
      return [...found];
    });
  const firstMatch = sqlite.prepare<[string], { x: number }>(
    "SELECT 1 AS x FROM files_fts WHERE files_fts MATCH ? LIMIT 1",
  );
  /**
   * Whether some folder's path holds `expr`. A term in none usually lacks
   * one of its trigrams there too, found by reading that trigram's doclist
   * alone (receipt-2021: 1 ms instead of 6.6 at 1M rows); a common word of
   * names reads its whole doclist, so the answer is kept until the
   * database changes.
   */
  const inPaths = keptUntilChange<boolean>(sqlite);
  const inSomePath = (expr: string): boolean =>
    inPaths(
      expr,
      () =>
        phraseTrigrams(expr).every((t) => firstMatch.get(`path : ${t}`)) &&
        firstMatch.get(`path : (${expr})`) !== undefined,
    );
  /**
   * The spec with its terms resolved against the index: short terms
   * expanded, and the terms some directory's path holds set apart (they
   * also match the files below it; search.query.ts pathCondition).
   */
  const resolved = (spec: SearchSpec): SearchSpec => {
    if (spec.terms) return spec;
    const terms = splitTerms(spec.text, expand);
    const own: string[] = [];
    for (const expr of terms.fts) (inSomePath(expr) ? terms.viaFolders : own).push(expr);
    return { ...spec, terms: { ...terms, fts: own } };
  };

  const number = (q: Sql): number => (prepared(q).get(...q.params) as { n: number }).n;
  /**
   * A window of ids read with the total of all matches (a window function
   * in `q`); a window past the end has no row to carry it, so `count` asks.
   */
  const windowed = (q: Sql, offset: number, count: () => number) => {
    const rows = prepared(q).all(...q.params) as { id: string; total: number }[];
    return { ids: rows.map((r) => r.id), total: rows[0]?.total ?? (offset > 0 ? count() : 0) };
  };
  const ids = (q: Sql): string[] => (prepared(q).all(...q.params) as { id: string }[]).map((r) => r.id);

  /** Number of live rows of the organization matching the search (and `acl`), `within` rowids where given. */
  const count = (organizationId: string, spec: SearchSpec, acl?: Sql, within?: RowidRange): number =>
    number(countQuery(organizationId, spec, acl, within));

  /**
   * The broad plan's answer, or undefined when the general plan is the
   * cheaper one. Under folder grants, the rows the viewer cannot read are
   * subtracted from the index-only totals while they are few and known
   * (`scope.hidden`); otherwise the total is counted (the page still walks
   * the name index).
   */
  const broadPage = (
    org: string,
    spec: SearchSpec,
    limit: number,
    offset: number,
    scope?: Scope,
  ): SearchPage | undefined => {
    const acl = scope?.acl;
    const cap = plan.broadMaxOutside;
    const hidden = scope?.hidden ?? [];
    const hiddenRows = !scope
      ? 0
      : scope.hidden === undefined
        ? cap
        : hidden.length === 0
          ? 0
          : number(hiddenRowsQuery(org, hidden, cap));
    if (isBrowse(spec)) {
      const total = hiddenRows < cap ? liveCount(org) - hiddenRows : count(org, spec, acl);
      const page = total > offset ? ids(walkPageQuery(org, spec, limit, offset, acl)) : [];
      // By size the walk read the large files alone: a page they do not fill needs the smaller ones.
      if (page.length < Math.min(limit, total - offset)) return undefined;
      return { ids: page, total, estimated: false, plan: "broad" };
    }
    const matches = number(ftsCountQuery(spec));
    // A term also in folder paths: the folders' children not holding it themselves come on top.
    const viaFolder = spec.terms?.viaFolders.length ? number(folderChildrenQuery(org, spec, acl)) : 0;
    const dense = matches + viaFolder;
    if (dense < plan.broadMinMatches) return undefined;
    const expectedWalk = ((offset + limit) * number(maxRowidQuery)) / dense;
    if (expectedWalk > plan.broadMaxWalk) return undefined;
    const outside = number(outsideRowsQuery(org, cap));
    const total =
      outside >= cap || hiddenRows >= cap
        ? count(org, spec, acl)
        : matches -
          (outside > 0 ? number(outsideMatchesQuery(org, spec)) : 0) -
          (hiddenRows > 0 ? number(hiddenMatchesQuery(org, hidden, spec)) : 0) +
          viaFolder;
    if (total <= offset) return { ids: [], total, estimated: false, plan: "broad" };
    // The walk expects matches spread evenly over names; where they gather late in the order
    // ("IMG_2019" in a photo library: every name before "IMG_" walked) it stops at a bound a few
    // times the expected length, and a page it could not fill goes to the general plan. Where the
    // dense plan's sample (kept) already puts the page past that bound, the walk is not tried
    // ("img_2019": ~9 ms walked for nothing before the general plan's 7).
    if (sampledNameWalk(org, spec, offset + limit, total) > SAMPLED_WALK_OVER * boundSteps(expectedWalk))
      return undefined;
    const bound = walkBound(org, spec.sortOrder === "desc", expectedWalk);
    const page = ids(walkPageQuery(org, spec, limit, offset, acl, bound));
    if (bound !== undefined && page.length < Math.min(limit, total - offset)) return undefined;
    return { ids: page, total, estimated: false, plan: "broad" };
  };

  /**
   * The bound of a walk of about BOUND_FACTOR times `expected` rows (a
   * power of two, at least plan.broadMinBound), kept until the database changes;
   * undefined when the organization has fewer live rows.
   */
  const bounds = keptUntilChange<string | undefined>(sqlite);
  /** The name `steps` entries into the organization's live names (search.dense.ts DenseIndex.nameAtStep). */
  const nameAtStep = (org: string, descending: boolean, steps: number): string | undefined =>
    bounds(`${org} ${descending} ${steps}`, () => {
      const q = walkBoundQuery(org, descending, steps);
      return (prepared(q).get(...q.params) as { name: string } | undefined)?.name;
    });
  /** The entries the broad plan's walk reads at most, for a walk expected to read `expected`. */
  const boundSteps = (expected: number) =>
    2 ** Math.ceil(Math.log2(Math.max(plan.broadMinBound, expected * BOUND_FACTOR)));
  const walkBound = (org: string, descending: boolean, expected: number): string | undefined =>
    nameAtStep(org, descending, boundSteps(expected));

  /**
   * How many entries of the name order a walk reads to hold a page ending
   * at match `need` of `total`, as the dense plan's sample (kept) places
   * its matches (walkToPage; their text alone tested); 0 where it cannot
   * tell (another order, fewer than two sampled matches).
   */
  const sampledNameWalk = (org: string, spec: SearchSpec, need: number, total: number): number => {
    if (spec.sortBy !== "name") return 0;
    const { rows, scale } = wholeSample(org);
    const matches = rowMatcher(textTerms(spec.text, MAX_TERMS));
    const hits = rows.filter((r) => matches(r[1], r[2], r[3] === 1)).map((r) => r[7]);
    if (hits.length < 2) return 0;
    // The organization's live rows the sample stands for (it reads theirs alone).
    const live = rows.length * scale;
    return walkToPage(
      rows.map((r) => r[7]),
      hits,
      spec.sortOrder === "desc",
      need,
      total,
      live,
    );
  };

  /**
   * The organization's live rows, kept until the database changes: browsing
   * counts them all (~65 ms at 1M rows), for every page.
   */
  const liveCounts = keptUntilChange<number>(sqlite);
  const liveCount = (org: string): number => liveCounts(org, () => number(liveCountQuery(org)));

  /**
   * The live directories at or under a folder, kept until the database
   * changes: found through the FTS index's paths of directories, ~20 ms for
   * 8k directories at 1M rows (search.sets.ts foldersUnderQuery). At most
   * FOLDERS_KEPT directories are kept, summed over the folders: a user
   * asking under many big folders cannot grow a search thread's memory.
   */
  const folders = keptUntilChange<readonly Folder[] | undefined>(sqlite, {
    weight: (dirs) => dirs?.length ?? 0,
    most: FOLDERS_KEPT,
  });
  const foldersUnder = (org: string, path: string) =>
    folders(`${org} ${path}`, () => {
      const q = foldersUnderQuery(org, path);
      return q && (prepared(q).all(...q.params) as Folder[]);
    });

  /**
   * The spans of the organization's directories whose name holds `expr`
   * (search.runs.ts namedDirs), each from `read`; undefined when more than
   * `most` directories hold it (counted in the index) or one has no span.
   */
  const namedDirSpans = (
    org: string,
    expr: string,
    most: number,
    read: (org: string, path: string) => Span | undefined,
  ): Span[] | undefined => {
    if (number(countUpTo(namedDirs(expr), most)) > most) return undefined;
    const q = namedDirPathsQuery(org, expr);
    const spans: Span[] = [];
    for (const { path } of prepared(q).all(...q.params) as { path: string }[]) {
      const span = read(org, path);
      if (!span) return undefined;
      spans.push(span);
    }
    return spans;
  };

  /**
   * The answer of a plan that checks its terms on the rows of `set` (a
   * subquery of rowids `r`), as the subtree plan does, with an exact total.
   */
  const checkedPage = (
    name: "runs" | "sizes" | "span",
    org: string,
    spec: SearchSpec,
    set: Sql,
    limit: number,
    offset: number,
    acl?: Sql,
  ): SearchPage => {
    const page = windowed(setCheckedPageQuery(org, spec, set, limit, offset, acl), offset, () =>
      number(setCheckedTotalQuery(org, spec, set, acl)),
    );
    return { ...page, estimated: false, plan: name };
  };

  /** A folder's span, read now (spanQuery); undefined past plan.spanMaxRows descendants. */
  const readSpan = (org: string, path: string): Span | undefined => {
    const q = spanQuery(org, path, plan.spanMaxRows);
    const row = prepared(q).get(...q.params) as { lo: number | null; hi: number | null; n: number };
    if (row.n > plan.spanMaxRows) return undefined;
    return { lo: row.lo ?? 1, hi: row.hi ?? 0, rows: row.n };
  };
  /**
   * A folder's span of rowids (search.span.ts), kept until the database
   * changes; undefined when it has more than plan.spanMaxRows descendants.
   */
  const spans = keptUntilChange<Span | undefined>(sqlite);
  const spanOf = (org: string, path: string): Span | undefined =>
    spans(`${org} ${path}`, () => readSpan(org, path));

  /**
   * The rows under the folders whose path holds `term` (search.dense.ts
   * DenseIndex.folderRows): the spans of the directories whose name holds
   * it (search.runs.ts namedDirs), when at most NAMED_FOLDERS_MAX do
   * (counted in the index) and each span holds its folder's rows alone.
   * Kept until the database changes: counting the directories a common
   * word names cost ~0.4 ms of every search of it ("final": 1,469).
   */
  const namedFolderRows = keptUntilChange<Sql | null>(sqlite);
  const folderRows = (org: string, term: string): Sql | undefined =>
    namedFolderRows(`${org} ${term}`, () => {
      const spans = namedDirSpans(org, termExpression(term), NAMED_FOLDERS_MAX, spanOf);
      if (!spans?.every((span) => span.rows === 0 || pureSpan(span) !== undefined)) return null;
      return spansCondition(spans);
    }) ?? undefined;

  /** The dense plan's sample rows (a few organizations' worth: 2,048 rows each at most). */
  const samples = keptUntilChange<readonly SampleRow[]>(sqlite, {
    weight: (rows) => rows.length,
    most: 4 * SAMPLE_WINDOWS * WINDOW_ROWS,
  });
  const sampleRowsOf = (org: string, max: number, part: SamplePart) =>
    samples(`${org} ${max} ${part}`, () => {
      const q = sampleRowsQuery(org, samplePart(max, part));
      return (
        prepared(q)
          .raw(true)
          .all(...q.params) as unknown[][]
      ).map(sampleRow);
    });
  /** Both parts of the organization's sample (kept), and how many rowids each of its rows stands for. */
  const wholeSample = (org: string) => {
    const max = number(maxRowidQuery);
    return {
      rows: [...sampleRowsOf(org, max, "first"), ...sampleRowsOf(org, max, "rest")],
      scale: sampleScale(max),
    };
  };
  /**
   * The rows a path filter keeps as spans of rowids (search.dense.ts
   * pathSpans: its folder's span and its own live rows), kept until the
   * database changes: every walk under a folder asks it.
   */
  const pathSpansKept = keptUntilChange<Span[] | null>(sqlite);
  const pathSpansOf = (org: string, path: string): Span[] | undefined =>
    pathSpansKept(`${org} ${path}`, () => {
      const span = spanOf(org, path);
      if (!span) return null;
      const q = selfRowidsQuery(org, path);
      return pathSpans(
        span,
        prepared(q)
          .pluck()
          .all(...q.params) as number[],
      );
    }) ?? undefined;
  /**
   * The range of rowids holding every row `spec`'s path filter keeps (its
   * folder's span and own row: pathSpansOf), for the general plan
   * (search.query.ts RowidRange); undefined without a path filter, or
   * where the folder's span is not kept (past plan.spanMaxRows rows).
   */
  const pathRowids = (org: string, spec: SearchSpec): RowidRange | undefined => {
    if (spec.path === undefined || !plan.span) return undefined;
    const spans = pathSpansOf(org, spec.path)?.filter((s) => s.rows > 0);
    if (!spans || spans.length === 0) return undefined;
    return { lo: Math.min(...spans.map((s) => s.lo)), hi: Math.max(...spans.map((s) => s.hi)) };
  };
  /**
   * About how many of the organization's live rows the buckets of a
   * search's range of sizes hold (sizeBucketRange), from the dense plan's
   * sample (kept): within about a factor of two for a range of more than a
   * few hundredths of the rows.
   */
  const rowsInSizeBuckets = (org: string, spec: SearchSpec): number => {
    const [lowest, highest] = sizeBuckets(spec);
    const { rows, scale } = wholeSample(org);
    return rows.filter((r) => r[5] >= lowest && r[5] <= highest).length * scale;
  };
  /**
   * The rowids of a range of sizes' buckets (sizeRangeRowidsQuery), at most
   * SIZES_RANGE_MAX + 1, kept until the database changes (SIZE_RANGES_KEPT):
   * a search paged, or typed a letter at a time, with the same sizes reads
   * them once (61k rowids from 100 to 400 bytes at 1M rows: ~11 ms).
   */
  const sizeRanges = keptUntilChange<Uint32Array>(sqlite, {
    weight: (rowids) => rowids.length,
    most: SIZE_RANGES_KEPT,
  });
  const sizeRangeRowids = (org: string, spec: SearchSpec): Uint32Array =>
    sizeRanges(`${org} ${sizeBuckets(spec).join(" ")}`, () => {
      const q = sizeRangeRowidsQuery(org, spec, SIZES_RANGE_MAX);
      return Uint32Array.from(
        prepared(q)
          .pluck()
          .all(...q.params) as number[],
      );
    });
  const densePlan = createDensePlan(prepared, plan, {
    inSomePath,
    expand,
    foldersUnder,
    spanOf,
    folderRows,
    pathSpansOf,
    nameAtStep,
    sampleRows: sampleRowsOf,
  });

  /** About how many index matches `expr` has, from the rowid of its K-th (search.folders.ts chooseDriver). */
  const estimate = (expr: string): number => {
    const q = nthMatchQuery(expr);
    const row = prepared(q).get(...q.params) as { n: number } | undefined;
    return row ? ((ESTIMATE_AT + 1) * number(maxRowidQuery)) / row.n : ESTIMATE_AT;
  };

  /**
   * The runs of rowids under the directories whose name holds `expr`
   * (search.runs.ts), merged, kept until the database changes (at most
   * RUNS_KEPT runs, summed); null when more than RUNS_MAX_DIRS directories
   * hold it, or one has more than plan.spanMaxRows rows under it.
   */
  const wordRuns = keptUntilChange<[number, number][] | null>(sqlite, {
    weight: (runs) => runs?.length ?? 0,
    most: RUNS_KEPT,
  });
  const runsOf = (org: string, expr: string) =>
    wordRuns(`${org} ${expr}`, () => {
      // Read, not kept one by one: a word's hundreds of folders would push other spans out.
      const spans = namedDirSpans(org, expr, RUNS_MAX_DIRS, readSpan);
      return spans ? mergeRuns(spans) : null;
    });

  /**
   * The answer of the plan for several words of folders' names
   * (search.runs.ts), or undefined when a word is short, has more than
   * RUNS_MAX_OWN index matches of its own or too many folders, or the words
   * share more than RUNS_MAX_ROWS rows (the folders plan answers).
   */
  const runsPage: RangePlan = (org, spec, limit, offset, acl) => {
    const terms = termsOf(spec);
    const texts = textTerms(spec.text, MAX_TERMS);
    if (terms.short.length > 0 || texts.length < 2 || texts.some(isShortTerm)) return undefined;
    const found: { expr: string; runs: [number, number][]; rows: number }[] = [];
    for (const text of texts) {
      const expr = termExpression(text);
      const own = number(countUpTo(ownMatches(expr), RUNS_MAX_OWN));
      if (own > RUNS_MAX_OWN) return undefined;
      const runs = inSomePath(expr) ? runsOf(org, expr) : [];
      if (runs === null) return undefined;
      found.push({ expr, runs, rows: runs.reduce((n, [lo, hi]) => n + hi - lo + 1, own) });
    }
    // The word with the fewest rows first: its rows are walked, the others' only tested. When even
    // its rows are more than four times the bound, the words likely share more rows than it reads
    // ("pink floyd": ~47k), and their rowids are not read at all.
    found.sort((a, b) => a.rows - b.rows);
    if (found[0]!.rows > RUNS_FEWEST_FACTOR * RUNS_MAX_ROWS) return undefined;
    // The names holding every word are rows the plan would read whatever the runs: past half its
    // bound (17.6k names hold both "pink" and "floyd"), it would give up after reading the rowids.
    const together = ownMatches(ftsExpression(found.map((f) => f.expr)));
    if (number(countUpTo(together, RUNS_MAX_ROWS / 2)) > RUNS_MAX_ROWS / 2) return undefined;
    const words: WordRows[] = found.map(({ expr, runs }) => {
      const own = ownRowidsQuery(expr, RUNS_MAX_OWN);
      return {
        own: prepared(own)
          .pluck()
          .all(...own.params) as number[],
        runs,
      };
    });
    const rowids = intersectWords(words, RUNS_MAX_ROWS);
    if (!rowids) return undefined;
    return checkedPage("runs", org, checkedSpec(spec, []), rowidSet(rowids), limit, offset, acl);
  };

  /** The folder-terms plan's answer (search.folders.ts). */
  const foldersPage = (
    org: string,
    spec: SearchSpec,
    limit: number,
    offset: number,
    acl?: Sql,
  ): SearchPage => {
    const driver = chooseDriver(spec, estimate);
    const page = windowed(foldersPageQuery(org, spec, driver, limit, offset, acl), offset, () =>
      number(foldersCountQuery(org, spec, driver, acl)),
    );
    return { ...page, estimated: false, plan: "folders" };
  };

  /** The index matches of the least common of `terms` asked of the FTS index (estimated; Infinity for none). */
  const leastMatches = (terms: ReturnType<typeof termsOf>) =>
    Math.min(...[...terms.fts, ...terms.viaFolders].map(estimate));

  /** The subtree plan's queries (search.subtree.ts), for rangePage. */
  const subtreeQueries = (org: string, spec: SearchSpec, limit: number, offset: number, acl?: Sql) => ({
    rows: (bound: number) => subtreeCountQuery(org, spec, bound),
    page: () => subtreePageQuery(org, spec, limit, offset, acl),
    total: () => subtreeTotalQuery(org, spec, acl),
  });
  /**
   * The answer of the plan for common terms within a folder, a span of
   * dates or a range of sizes (search.subtree.ts), or undefined when the
   * range holds more rows than plan.subtreeFewRows and than the least common
   * term has index matches (or no term is in the index: the general plan
   * then reads the range's rows itself).
   */
  const subtreePage: RangePlan = (org, spec, limit, offset, acl) => {
    const q = subtreeQueries(org, spec, limit, offset, acl);
    // A range of few rows (dates before the library was indexed: none) is read whatever the terms.
    const few = rangePage("subtree", plan.subtreeFewRows, offset, q);
    if (few) return few;
    const terms = termsOf(spec);
    if (terms.fts.length + terms.viaFolders.length === 0) return undefined;
    const least = leastMatches(terms);
    if (least < plan.subtreeMinMatches) return undefined;
    // A row of the folder costs about a quarter of an index match (read, then its row) in the
    // other plans: measured at 1M rows, 0.4-0.5 µs against ~2 µs. A range of sizes costs more a
    // row (~2.8 µs: "season 03" from 1 byte, 105k rows in 293 ms, where the folders plan took 71).
    const sized = !spec.path && !spec.startDate && !spec.endDate;
    return rangePage("subtree", (sized ? SIZES_ROWS_PER_MATCH : SUBTREE_ROWS_PER_MATCH) * least, offset, q);
  };

  /**
   * The answer of a plan reading a range of rows (a folder, dates, sizes)
   * instead of a term's index matches, with an exact total; undefined when
   * the range holds more than `bound` rows (counted up to that bound).
   */
  const rangePage = (
    name: "sizes" | "subtree",
    bound: number,
    offset: number,
    q: { rows: (bound: number) => Sql; page: () => Sql; total: () => Sql },
  ): SearchPage | undefined => {
    if (number(q.rows(bound)) > bound) return undefined;
    return { ...windowed(q.page(), offset, () => number(q.total())), estimated: false, plan: name };
  };

  /**
   * The plan for text within a range of sizes, read as rowids
   * (search.sizes.ts heldByEveryWord): each word's own index matches (at
   * most plan.sizeOwnMax) and its runs (search.runs.ts), then the range's
   * rowids from the size buckets' index, at most SIZES_RANGE_PER_ROW for
   * each row of the word with the fewest and SIZES_RANGE_MAX; the rows
   * every word holds (at most RUNS_MAX_ROWS) are read and checked as the
   * runs plan's are. Undefined past a bound, or for a short term the index
   * did not resolve or a term with "/".
   */
  const sizeRangeRowidsPage: RangePlan = (org, spec, limit, offset, acl) => {
    const terms = termsOf(spec);
    if (terms.short.length > 0 || textTerms(spec.text, MAX_TERMS).some((t) => t.includes("/")))
      return undefined;
    const exprs = [...terms.fts, ...terms.viaFolders];
    if (exprs.length === 0) return undefined;
    // Far more rows than it ever reads (the empty files, nine in ten of a library): neither the
    // words' rowids nor the range's are read to learn it ("mp4" up to 0 bytes: 100k and 262k
    // rowids, ~30 ms, then left to the dense plan).
    const inRange = rowsInSizeBuckets(org, spec);
    if (inRange > SIZES_SAMPLED_OVER * SIZES_RANGE_MAX) return undefined;
    const words: WordRows[] = [];
    let fewest = Infinity;
    for (const expr of exprs) {
      const runs = inSomePath(expr) ? runsOf(org, expr) : [];
      if (runs === null) return undefined;
      const ownQ = ownRowidsQuery(expr, plan.sizeOwnMax + 1);
      const own = prepared(ownQ)
        .pluck()
        .all(...ownQ.params) as number[];
      // A word this common ("part": 198k names): the range's rows read and checked as the subtree
      // plan reads a folder's, when they are a few times fewer (10k from 1 to 50 bytes: 18 against
      // 90 ms for a set of its matches; its index estimate, from where its 33rd match lies, was low).
      if (own.length > plan.sizeOwnMax)
        return rangePage(
          "subtree",
          SIZES_RANGE_READ_MAX,
          offset,
          subtreeQueries(org, spec, limit, offset, acl),
        );
      words.push({ own, runs });
      fewest = Math.min(
        fewest,
        runs.reduce((n, [lo, hi]) => n + hi - lo + 1, own.length),
      );
    }
    const bound = Math.min(SIZES_RANGE_MAX, SIZES_RANGE_PER_ROW * fewest);
    if (inRange > SIZES_SAMPLED_OVER * bound) return undefined;
    const range = sizeRangeRowids(org, spec);
    if (range.length > bound) return undefined;
    const rowids = heldByEveryWord(range, words, RUNS_MAX_ROWS);
    if (!rowids) return undefined;
    return checkedPage("sizes", org, checkedSpec(spec, []), rowidSet(rowids), limit, offset, acl);
  };

  /**
   * The answer of the plan for text within a range of sizes
   * (search.sizes.ts) from a set of matches SQLite builds, or undefined
   * when the range holds more rows than SIZE_RANGE_ROWS_PER_MATCH per index
   * match of the least common term, or
   * a term has no set of matches (a short one the index did not resolve, or
   * one with "/"). The matches are estimated from where the term's K-th
   * lies; when that leaves the range too big, a single word's own matches
   * are counted up to SIZES_COUNT_BOUND and the range tried again: the
   * estimate runs low for a word gathered late in the rowids (".jpg": ~200
   * where 81k names hold it, left to the general plan, ~80 ms in process,
   * where this plan takes ~35).
   */
  const sizeRangeSetPage: RangePlan = (org, spec, limit, offset, acl) => {
    const terms = termsOf(spec);
    // The text's matches, tested on each entry; the path filter, if any, is a condition on the rows.
    const set = textSet(org, spec.text, terms, inSomePath);
    if (!set) return undefined;
    // Built once the range is known to fit: a word of folders' names asks the index for them.
    let match: Sql | undefined;
    const matchOf = () =>
      (match ??= spannedMatch(spec.text, inSomePath, (term) => folderRows(org, term)) ?? inSet(set));
    const q = {
      rows: (bound: number) => sizeRangeRowsQuery(org, spec, bound),
      page: () => sizeRangePageQuery(org, spec, matchOf(), limit, offset, acl),
      total: () => sizeRangeTotalQuery(org, spec, matchOf(), acl),
    };
    const [expr, ...others] = [...terms.fts, ...terms.viaFolders];
    return (
      rangePage("sizes", SIZE_RANGE_ROWS_PER_MATCH * leastMatches(terms), offset, q) ??
      (expr === undefined || others.length > 0
        ? undefined
        : rangePage(
            "sizes",
            SIZE_RANGE_ROWS_PER_MATCH * number(countUpTo(ownMatches(expr), SIZES_COUNT_BOUND)),
            offset,
            q,
          ))
    );
  };

  /**
   * The answer of the plan for text under a folder within its span
   * (search.span.ts), driven by the term with the fewest rows there (each
   * counted up to plan.spanMaxMatches; the first found under
   * SPAN_FEW_MATCHES is taken), or undefined when no term is under that
   * bound, or every term is in the folder's own path.
   */
  const spanPage = (
    org: string,
    spec: SearchSpec,
    limit: number,
    offset: number,
    acl?: Sql,
    most = plan.spanMaxMatches,
  ): SearchPage | undefined => {
    const text = spanTerms(spec.text, expand);
    if (!text) return { ids: [], total: 0, estimated: false, plan: "span" };
    const span = spanOf(org, spec.path!);
    if (!span) return undefined;
    // The share of the library's rowids the span holds: a term's index matches there, if spread evenly.
    const share = (span.hi - span.lo + 1) / number(maxRowidQuery);
    let driver: { set: Sql; rows: number } | undefined;
    for (const term of text.terms) {
      if (term.expr === undefined || number(pathHoldsQuery(spec.path!, term)) === 1) continue;
      // No descendants (a folder not in this library, or empty): nothing under it holds the term,
      // and FTS5 reads every doclist of an empty range of rowids ("_" under a folder the other tree
      // lacks: two reads of ~120 ms for nothing).
      if (span.rows === 0) return { ids: [], total: 0, estimated: false, plan: "span" };
      // A common term ("ab" in a library of "Abbey Road"s) is not counted at all.
      if (estimate(term.expr) * share > SPAN_ESTIMATE_FACTOR * most) continue;
      const rows = number(spanSetCountQuery(spanSet(term.expr, span, true), most));
      if (rows <= most && (!driver || rows < driver.rows)) driver = { set: spanSet(term.expr, span), rows };
      if (driver && driver.rows <= SPAN_FEW_MATCHES) break;
    }
    if (!driver) return undefined;
    const terms = text.resolve();
    if (!terms) return { ids: [], total: 0, estimated: false, plan: "span" };
    const scanned = terms.filter((t) => t.scanned).map((t) => t.term);
    return checkedPage("span", org, checkedSpec(spec, scanned), driver.set, limit, offset, acl);
  };

  return {
    /** The spec with its terms resolved against the index (which are also in folders' paths). */
    resolve: resolved,

    /**
     * Ids of one window of matches, in the search's order, and the total
     * number of matches. The general plan counts in the same pass as it reads
     * the page (a window function); a window past the end falls back to a
     * count. Broad text searches take the plan of search.broad.ts, dense ones
     * that of search.dense.ts (whose total may be an estimate).
     */
    page(
      organizationId: string,
      asked: SearchSpec,
      limit: number,
      offset: number,
      scope?: Scope,
    ): SearchPage {
      const input = { ...asked, letters: nameLetters(organizationId) };
      const acl = scope?.acl;
      // A folder's rows a scan wrote together: the term's rows there, whatever their number elsewhere.
      const spanned =
        plan.span && spanEligible(input) ? spanPage(organizationId, input, limit, offset, acl) : undefined;
      if (spanned) return spanned;
      // Words within a range of sizes, read as rowids: an exact total, and cheaper than the dense
      // plan's walk when the range's rows are few enough for the words' ("photos" from 100 to 400
      // bytes: 176k rows under /Photos among 61k in the range, 27 against 52 ms). A shorter term
      // is left to the dense plan first: resolving a single letter costs more than its walk.
      const wordsInRange =
        plan.sizes &&
        plan.sizeRowids &&
        sizeRangeEligible(input) &&
        textTerms(input.text, MAX_TERMS).every((t) => !isShortTerm(t));
      if (wordsInRange) {
        const spec = resolved(input);
        if (spec.terms?.none) return { ids: [], total: 0, estimated: false, plan: "sizes" };
        const sized = sizeRangeRowidsPage(organizationId, spec, limit, offset, acl);
        if (sized) return sized;
      }
      // Before resolving the terms: the dense plan tests rows itself, and asking the index which
      // terms folders' paths hold costs up to several milliseconds for a common word.
      const dense =
        plan.dense && denseEligible(input) ? densePlan(organizationId, input, limit, offset, acl) : undefined;
      if (dense) return { ...dense, plan: "dense" };
      // Few files at or above a large minimum size (and too few matches for the dense plan): read them
      // all, whatever the terms, for an exact total.
      if (
        plan.large &&
        largeEligible(input) &&
        number(largeCountQuery(organizationId, input)) <= LARGE_PLAN_MAX
      ) {
        const spec = resolved(input);
        if (spec.terms?.none) return { ids: [], total: 0, estimated: false, plan: "large" };
        const page = windowed(largePageQuery(organizationId, spec, limit, offset, acl), offset, () =>
          number(largeTotalQuery(organizationId, spec, acl)),
        );
        return { ...page, estimated: false, plan: "large" };
      }
      // Under a folder the dense plan left, its span again with more rows allowed ("notes" under
      // /Tree/Music, 15k rows, 28 ms where the folders plan took 55): before it, they would take
      // pages the dense plan answers in a few milliseconds ("wembley" there, 8 against 22).
      const lateSpan =
        plan.span && spanEligible(input)
          ? spanPage(organizationId, input, limit, offset, acl, SPAN_LATE_FACTOR * plan.spanMaxMatches)
          : undefined;
      if (lateSpan) return lateSpan;
      const spec = resolved(input);
      if (spec.terms?.none) return { ids: [], total: 0, estimated: false, plan: "general" };
      // Shorter terms, after the dense plan: as rowids (unless tried above); else the range's rows
      // read when they are few or the terms common (the subtree plan: "part" from 1 to 50 bytes, 10k
      // rows, 18 ms, where a set of its ~150k matches took 90); else a set of the matches.
      const sizes = plan.sizes && sizeRangeEligible(spec);
      const rowids =
        sizes && plan.sizeRowids && !wordsInRange
          ? sizeRangeRowidsPage(organizationId, spec, limit, offset, acl)
          : undefined;
      if (rowids) return rowids;
      const subtree =
        plan.subtree && subtreeEligible(spec)
          ? subtreePage(organizationId, spec, limit, offset, acl)
          : undefined;
      if (subtree) return subtree;
      const sized =
        sizes && sizeRangeSetEligible(spec)
          ? sizeRangeSetPage(organizationId, spec, limit, offset, acl)
          : undefined;
      if (sized) return sized;
      const broad =
        plan.broad && broadEligible(spec) ? broadPage(organizationId, spec, limit, offset, scope) : undefined;
      if (broad) return broad;
      if (plan.folders && foldersEligible(spec)) {
        const runs = plan.runs ? runsPage(organizationId, spec, limit, offset, acl) : undefined;
        return runs ?? foldersPage(organizationId, spec, limit, offset, acl);
      }
      const within = pathRowids(organizationId, spec);
      const page = windowed(pageQuery(organizationId, spec, limit, offset, acl, within), offset, () =>
        count(organizationId, spec, acl, within),
      );
      return { ...page, estimated: false, plan: "general" };
    },
  };
}

export type SearchRepo = ReturnType<typeof createSearchRepo>;
