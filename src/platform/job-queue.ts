import { createLimit } from "./pool.ts";

/**
 * Runs keyed jobs with bounded concurrency: at most `concurrency` run at
 * once, more wait their turn in order, and a job asked for again while it
 * runs or waits is not started twice (the callers share its promise). A
 * failure may be remembered for `failureTtlMs`, so a file that cannot be
 * read is not retried by every request that asks (a short negative cache).
 *
 * One helper for every pool of outside work (thumbnails, ffprobe): a burst of
 * requests costs at most `concurrency` processes, never one per request.
 */
export interface JobQueue {
  run<T>(key: string, job: () => Promise<T>): Promise<T>;
  /** Jobs running or waiting now. */
  readonly size: number;
}

export function createJobQueue(opts: {
  concurrency: number;
  failureTtlMs?: number;
  maxFailures?: number;
}): JobQueue {
  const inFlight = new Map<string, Promise<unknown>>();
  const failures = new Map<string, { err: unknown; until: number }>();
  const maxFailures = opts.maxFailures ?? 1000;
  const slot = createLimit(opts.concurrency);

  function remember(key: string, err: unknown): void {
    if (!opts.failureTtlMs) return;
    if (failures.size >= maxFailures) failures.delete(failures.keys().next().value as string);
    failures.set(key, { err, until: Date.now() + opts.failureTtlMs });
  }

  return {
    run<T>(key: string, job: () => Promise<T>): Promise<T> {
      const failed = failures.get(key);
      if (failed) {
        if (failed.until > Date.now()) return Promise.reject(failed.err);
        failures.delete(key);
      }
      const existing = inFlight.get(key);
      if (existing) return existing as Promise<T>;
      const p = slot(job)
        .catch((err: unknown) => {
          remember(key, err);
          throw err;
        })
        .finally(() => inFlight.delete(key));
      inFlight.set(key, p);
      return p;
    },
    get size() {
      return inFlight.size;
    },
  };
}
