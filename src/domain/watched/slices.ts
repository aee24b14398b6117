import { setImmediate as yieldToLoop } from "node:timers/promises";
import type { WatchedRepo } from "./watched.repo.ts";

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
