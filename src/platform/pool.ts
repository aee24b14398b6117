/**
 * Bounded concurrency, one module for every pool: workers pulling from
 * shared state (the watched-folder walk, hashing, link resolution), and a
 * limit on jobs started one by one (job-queue.ts for outside processes, the
 * browser UI's thumbnail fetches). No imports, so the UI bundles it too.
 */

/** Runs each job given to the returned function with at most `concurrency` at once; the rest wait in order. */
export function createLimit(concurrency: number): <T>(job: () => Promise<T>) => Promise<T> {
  const waiting: (() => void)[] = [];
  let running = 0;
  return async (job) => {
    if (running >= concurrency) await new Promise<void>((r) => waiting.push(r));
    running++;
    try {
      return await job();
    } finally {
      running--;
      waiting.shift()?.();
    }
  };
}

/**
 * createLimit per key: the jobs of one key run at most `concurrency` at once
 * (the rest wait in order), and never make another key's jobs wait. A key
 * is forgotten once it has nothing running or waiting.
 */
export function createKeyedLimit(concurrency: number): <T>(key: string, job: () => Promise<T>) => Promise<T> {
  const byKey = new Map<string, { limit: ReturnType<typeof createLimit>; pending: number }>();
  return async (key, job) => {
    let entry = byKey.get(key);
    if (!entry) {
      entry = { limit: createLimit(concurrency), pending: 0 };
      byKey.set(key, entry);
    }
    entry.pending++;
    try {
      return await entry.limit(job);
    } finally {
      if (--entry.pending === 0) byKey.delete(key);
    }
  };
}

/**
 * Runs `count` copies of `worker` at once (they pull from shared state) and
 * resolves when all have returned. When one fails, the others still run to
 * their end (a worker should stop pulling once another failed) and the
 * first failure is thrown after: a caller that goes on after it never has
 * a worker of this run still working beside it.
 */
export async function runWorkers(count: number, worker: () => Promise<void>): Promise<void> {
  const results = await Promise.allSettled(Array.from({ length: Math.max(1, count) }, () => worker()));
  const failed = results.find((r) => r.status === "rejected");
  if (failed) throw failed.reason;
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
