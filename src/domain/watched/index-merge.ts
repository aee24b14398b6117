import { setTimeout as sleep } from "node:timers/promises";

/**
 * Merging the search index's segments after a scan added many rows (issue 14).
 *
 * A scan writes the index in bulk, one segment per transaction; FTS5's
 * automatic merging leaves a million-row index as many segments, and every
 * term of a query is looked up in each. Merged (FTS5's incremental 'merge'),
 * the same searches read fewer pages: on a real 1M-file scan, in process,
 * "holiday 2019" 44 -> 27 ms, "breaking bad s03" 84 -> 51, "cosmos 2160p"
 * 56 -> 36, "pink floyd" by relevance 77 -> 58 (whole 'optimize': 2.8 s).
 *
 * The work runs while the server is idle (no request for a while, no scan
 * running), in slices of about SLICE_MS, each a transaction of its own on a
 * turn of the event loop: a request arriving meanwhile waits for one slice
 * at most, and the merge waits for quiet again, leaving the event loop to
 * what follows a scan (going live, a rescan, the user's first look).
 */

/** Rows a scan must add before its index is merged. */
export const MERGE_AFTER_ROWS = 20_000;
/** Target time (ms) of one slice. */
const SLICE_MS = 20;
/** Pages of the first slice, before any was timed. */
const FIRST_PAGES = 32;
/** Pause between slices (ms): the event loop and other writers take turns. */
const PAUSE_MS = 5;
/** How often (ms) a merge waiting for quiet looks again. */
const IDLE_POLL_MS = 250;

export interface IndexMerger {
  /**
   * Merges `pages` pages' worth of the index (FTS5 'merge'; a first call with
   * `start` gathers every segment for one merge, as 'optimize' would); true
   * when it did work, false when nothing was left to merge.
   */
  mergeSome(pages: number, start: boolean): boolean;
}

/**
 * Merges the index to one segment per level, slice by slice while `idle()`
 * (waiting for it before each slice), until nothing is left or `signal`
 * aborts. Resolves with the number of slices run.
 */
export async function mergeIndex(
  merger: IndexMerger,
  opts: { signal: AbortSignal; idle?: () => boolean },
): Promise<number> {
  let pages = FIRST_PAGES;
  let msPerPage = 0;
  let slices = 0;
  let start = true;
  for (;;) {
    while (!opts.signal.aborted && opts.idle && !opts.idle()) await sleep(IDLE_POLL_MS);
    if (opts.signal.aborted) break;
    if (msPerPage > 0) pages = Math.max(8, Math.floor(SLICE_MS / msPerPage));
    const t0 = performance.now();
    const worked = merger.mergeSome(pages, start);
    const ms = performance.now() - t0;
    start = false;
    slices++;
    if (!worked) break;
    msPerPage = msPerPage === 0 ? ms / pages : msPerPage * 0.7 + (ms / pages) * 0.3;
    await sleep(PAUSE_MS);
  }
  return slices;
}
