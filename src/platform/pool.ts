/**
 * Bounded concurrency, one helper for every pool of in-process work (the
 * watched-folder walk, hashing, link resolution); outside processes
 * (ffprobe, thumbnails) go through job-queue.ts, which also deduplicates.
 */

/** Runs `count` copies of `worker` at once (they pull from shared state) and resolves when all have returned. */
export async function runWorkers(count: number, worker: () => Promise<void>): Promise<void> {
  await Promise.all(Array.from({ length: Math.max(1, count) }, () => worker()));
}

/** Maps `items` through `fn` with at most `limit` calls in flight, keeping order. */
export async function mapLimit<T, R>(
  items: readonly T[],
  limit: number,
  fn: (item: T) => Promise<R>,
): Promise<R[]> {
  const out = new Array<R>(items.length);
  let next = 0;
  await runWorkers(Math.min(limit, items.length), async () => {
    while (next < items.length) {
      const i = next++;
      out[i] = await fn(items[i] as T);
    }
  });
  return out;
}
