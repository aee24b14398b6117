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
 * The work runs in slices, each a transaction of its own on a turn of the
 * event loop, sized to hold the loop about SLICE_MS (less while requests
 * arrive), so that a request waits for one slice at most.
 */

/** Rows a scan must add before its index is merged. */
export const MERGE_AFTER_ROWS = 20_000;
/** Target time (ms) of one slice while requests arrive, and when idle. */
const BUSY_SLICE_MS = 15;
const IDLE_SLICE_MS = 60;
/** Pages of the first slice, before any was timed. */
const FIRST_PAGES = 32;
/** Pause between slices (ms): the event loop and other writers take turns. */
const PAUSE_MS = 5;

export interface IndexMerger {
  /**
   * Merges `pages` pages' worth of the index (FTS5 'merge'; a first call with
   * `start` gathers every segment for one merge, as 'optimize' would); true
   * when it did work, false when nothing was left to merge.
   */
  mergeSome(pages: number, start: boolean): boolean;
}

/**
 * Merges the index to one segment per level, slice by slice, until nothing
 * is left or `signal` aborts. Resolves with the number of slices run.
 */
export async function mergeIndex(
  merger: IndexMerger,
  opts: { signal: AbortSignal; busy?: () => boolean },
): Promise<number> {
  let pages = FIRST_PAGES;
  let msPerPage = 0;
  let slices = 0;
  let start = true;
  while (!opts.signal.aborted) {
    const budget = opts.busy?.() ? BUSY_SLICE_MS : IDLE_SLICE_MS;
    if (msPerPage > 0) pages = Math.max(8, Math.floor(budget / msPerPage));
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
