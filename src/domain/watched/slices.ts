import { setImmediate as yieldToLoop } from "node:timers/promises";
import type { AccessView } from "../access/access.ts";
import type { FileRow, WatchedRepo } from "./watched.repo.ts";

/**
 * Rows read per turn of the event loop. Counting a folder's files or
 * listing its directories reads every row of the folder (the type is not
 * in files_watched_idx): at 1M rows one statement held the event loop for
 * ~0.5–1 s at the end of each first scan, and again after every live
 * change. In slices of this many rows (~10 ms each), requests go on.
 */
export const SLICE_ROWS = 10_000;

/** Runs `read` over the folder's rows after its mount, SLICE_ROWS at a time in host path order, yielding between. */
async function eachSlice(
  repo: WatchedRepo,
  folderId: string,
  read: (after: string, upTo: string) => void,
  size: number,
): Promise<void> {
  let after = "";
  for (;;) {
    const bound = repo.relAt(folderId, after, size - 1);
    const upTo = bound ?? repo.lastRel(folderId);
    if (upTo === undefined || upTo <= after) return;
    read(after, upTo);
    if (bound === undefined) return;
    after = bound;
    await yieldToLoop();
  }
}

/** Live file rows of the folder (rows written meanwhile may or may not be counted). */
export async function countFiles(repo: WatchedRepo, folderId: string, size = SLICE_ROWS): Promise<number> {
  let n = 0;
  await eachSlice(repo, folderId, (after, upTo) => (n += repo.countFilesIn(folderId, after, upTo)), size);
  return n;
}

/** Host paths of the folder's live directories, "" (its root) first. */
export async function dirRels(repo: WatchedRepo, folderId: string, size = SLICE_ROWS): Promise<string[]> {
  const out = [""];
  await eachSlice(repo, folderId, (after, upTo) => out.push(...repo.dirRelsIn(folderId, after, upTo)), size);
  return out;
}

/** A folder's readable files counted slice by slice: where each slice starts, how many it holds. */
interface Counted {
  slices: { after: string; n: number }[];
  total: number;
}

/** Folders and viewers whose counts are kept at once; past it all are dropped. */
const MAX_KEPT = 256;

/** Counts the folder's files `viewer` may read, SLICE_ROWS at a time, yielding between slices. */
async function countReadable(
  repo: WatchedRepo,
  folderId: string,
  viewer: AccessView,
  size: number,
): Promise<Counted> {
  const counted: Counted = { slices: [], total: 0 };
  await eachSlice(
    repo,
    folderId,
    (after, upTo) => {
      const n = repo.countReadableIn(folderId, viewer, after, upTo);
      counted.slices.push({ after, n });
      counted.total += n;
    },
    size,
  );
  return counted;
}

/**
 * Pages of a folder's files the viewer may read, by host path, with how
 * many there are (GET /watched-folders/:id/files). The count runs a slice at
 * a time between other requests (one count of a 1M-file folder held the
 * event loop for a second), and a page is read from the slice holding its
 * offset (a deep page skips at most one slice's rows, never the million
 * before it). The slices' counts are kept, per folder and per set of
 * grants, until a row is added, removed, moved or re-granted (`watch`: a
 * movesWatch), so that paging through a big folder counts it once, not on
 * every page. A count taken while rows were written may hold some of them:
 * the next page, seeing the writes, counts again.
 */
export function createFilesPager(repo: WatchedRepo, watch: { changed(): boolean }, size = SLICE_ROWS) {
  const kept = new Map<string, Promise<Counted>>();
  const countedFor = (folderId: string, viewer: AccessView): Promise<Counted> => {
    if (watch.changed() || kept.size >= MAX_KEPT) kept.clear();
    // What the viewer may read is decided by these two (files.repo.ts readableBy).
    const key = `${folderId} ${viewer.top >= 1} ${viewer.atLeast[1]}`;
    let counted = kept.get(key);
    if (!counted) {
      const fresh = countReadable(repo, folderId, viewer, size);
      kept.set(key, fresh);
      fresh.catch(() => kept.get(key) === fresh && kept.delete(key));
      counted = fresh;
    }
    return counted;
  };
  return async (
    folderId: string,
    viewer: AccessView,
    page: { limit: number; offset: number },
  ): Promise<{ rows: FileRow[]; total: number }> => {
    const { slices, total } = await countedFor(folderId, viewer);
    let before = 0;
    for (const { after, n } of slices) {
      if (before + n > page.offset) {
        const rows = repo.readableFilesAfter(folderId, viewer, after, page.limit, page.offset - before);
        return { rows, total };
      }
      before += n;
    }
    return { rows: [], total };
  };
}
