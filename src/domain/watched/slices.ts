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

/**
 * One page of the folder's files the viewer may read, by host path, with
 * how many there are: counted a slice at a time between other requests (one
 * count of a 1M-file folder held the event loop for a second, on every
 * page), and read from the slice holding `offset` (a deep page skips at most
 * one slice's rows, never the million before it).
 */
export async function readableFilesPage(
  repo: WatchedRepo,
  folderId: string,
  viewer: AccessView,
  page: { limit: number; offset: number },
  size = SLICE_ROWS,
): Promise<{ rows: FileRow[]; total: number }> {
  let total = 0;
  let from: { after: string; skip: number } | undefined;
  await eachSlice(
    repo,
    folderId,
    (after, upTo) => {
      const n = repo.countReadableIn(folderId, viewer, after, upTo);
      if (!from && total + n > page.offset) from = { after, skip: page.offset - total };
      total += n;
    },
    size,
  );
  const rows = from ? repo.readableFilesAfter(folderId, viewer, from.after, page.limit, from.skip) : [];
  return { rows, total };
}
