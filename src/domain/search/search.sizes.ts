import {
  andWhere,
  countOf,
  countUpTo,
  LARGE_FILE_BYTES,
  MAX_TERMS,
  rowFilters,
  type Sql,
  sizeBucketRange,
  textTerms,
  windowOf,
} from "./search.query.ts";
import type { WordRows } from "./search.runs.ts";
import type { SearchSpec } from "./search.schemas.ts";

/**
 * The plan for text within a range of sizes ("final" between 100 and 400
 * bytes), with an exact total. The other plans are driven by a term's
 * matches in the FTS index and read each one's row to check its size:
 * "final" holds ~110k rows (names, and the children of folders named so) to
 * keep 6k, 0.25-0.33 s at 1M rows. This plan reads the size range's rows
 * from files_live_size_bucket_idx instead (migration 0021: the range's
 * buckets, each row's exact size then checked), in one of two ways:
 *
 * - As rowids (search.repo.ts sizeRangeRowidsPage, heldByEveryWord), first:
 *   each word's own index matches and its runs (the spans of the
 *   directories whose name holds it: search.runs.ts) and the range's
 *   entries are read into JavaScript from the indexes alone (~0.1 µs a
 *   rowid), the range's rowids that every word holds are kept, and only
 *   their rows are read, to check every term on the path, the filters and
 *   the grants (the runs plan's checks: search.subtree.ts). The rowids kept
 *   are a superset of the matches, never fewer. A range's rowids are kept
 *   until the database changes (search.repo.ts sizeRangeRowids): a search
 *   paged or typed a letter at a time with the same sizes reads them once.
 *   Several words are read the same way. At 1M rows, from 100 to 400 bytes
 *   (61k rows): "cafe" 33 → 9,
 *   "final" 64 → 26, "pink floyd" 58 → 14 ms (in process). A word with more
 *   own matches than it reads (plan.sizeOwnMax) has the range's rows read
 *   instead, as the subtree plan reads a folder's, when they are few enough.
 *   Words of three characters or more try this before the dense plan;
 *   shorter terms after it, and then the subtree plan (search.subtree.ts)
 *   reads a range of few rows, before the set below.
 * - As a set of the text's matches SQLite builds once from the FTS index
 *   (search.sets.ts textSet), each entry's rowid tested against it before
 *   its row is read, when a bound stopped the first: one term, at most a
 *   few range rows per index match of the least common term
 *   (search.repo.ts SIZE_RANGE_ROWS_PER_MATCH).
 *
 * The order and tie-breaks are the general plan's.
 */

/**
 * True when the plan can answer `spec`: text within a size range below the
 * large plan's, no tags. Several terms are only read as rowids
 * (sizeRangeRowidsPage); the set-built page takes one term without "/" (of
 * several, the set is built from every one's matches, where the folders
 * plan reads the least common one's alone: "breaking bad s03", 130 against
 * 68-90 ms).
 */
export function sizeRangeEligible(spec: SearchSpec): boolean {
  if (spec.minSize === undefined && spec.maxSize === undefined) return false;
  // From LARGE_FILE_BYTES up the large-files plan reads its own index (search.large.ts).
  if ((spec.minSize ?? 0) >= LARGE_FILE_BYTES) return false;
  if (spec.tagIds.length > 0) return false;
  return textTerms(spec.text, MAX_TERMS).length > 0;
}

/** True when the set-built page can answer `spec` (sizeRangeEligible): one term, without "/". */
export function sizeRangeSetEligible(spec: SearchSpec): boolean {
  const terms = textTerms(spec.text, MAX_TERMS);
  return terms.length === 1 && !terms[0]!.includes("/");
}

/**
 * Rowids of the organization's live rows in the range's buckets, from the
 * index alone (in bucket order, each bucket's ascending), at most `most` + 1.
 */
export function sizeRangeRowidsQuery(organizationId: string, spec: SearchSpec, most: number): Sql {
  const from = sizeBucketRange(organizationId, spec);
  return { sql: `SELECT f.rowid AS r ${from.sql} LIMIT ?`, params: [...from.params, Math.floor(most) + 1] };
}

/**
 * The rowids of `range` that every word holds (one of its own matches, or
 * within one of its runs: search.runs.ts), ascending; undefined past `most`.
 * Each word's rows up to the range's last rowid are set in a bitmap first
 * (~4 KiB for every 32k rowids): a range of 61k rows tested against
 * binary searches took ~6 ms, against the bitmaps ~1.
 */
export function heldByEveryWord(
  range: readonly number[] | Uint32Array,
  words: readonly WordRows[],
  most: number,
): number[] | undefined {
  let last = 0;
  for (const x of range) if (x > last) last = x;
  const maps = words.map((w) => wordBitmap(w, last));
  const out: number[] = [];
  for (const x of range) {
    if (!maps.every((m) => (m[x >>> 5]! & (1 << (x & 31))) !== 0)) continue;
    if (out.push(x) > most) return undefined;
  }
  return out.sort((a, b) => a - b);
}

/** A word's rows from 0 to `last` as a bitmap: bit x%32 of word x/32 set for rowid x. */
function wordBitmap(word: WordRows, last: number): Uint32Array {
  const map = new Uint32Array((last >>> 5) + 1);
  for (const x of word.own) if (x <= last) map[x >>> 5]! |= 1 << (x & 31);
  for (const [lo, hi] of word.runs)
    for (let x = Math.max(lo, 0); x <= Math.min(hi, last); ) {
      if ((x & 31) === 0 && x + 31 <= hi && x + 31 <= last) {
        map[x >>> 5] = 0xffffffff;
        x += 32;
      } else {
        map[x >>> 5]! |= 1 << (x & 31);
        x++;
      }
    }
  return map;
}

/** How many rows the plan would read, counted from the index up to `bound` + 1. */
export function sizeRangeRowsQuery(organizationId: string, spec: SearchSpec, bound: number): Sql {
  return countUpTo(sizeBucketRange(organizationId, spec), bound);
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
  return andWhere(sizeBucketRange(organizationId, spec), conds);
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
