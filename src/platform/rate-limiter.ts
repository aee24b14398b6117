/**
 * Fixed-window counters keyed by client (IP or user id), one window per
 * minute. Memory is bounded: past `maxKeys` the least recently touched keys
 * are forgotten (a Map keeps insertion order; touching re-inserts).
 */
export class RateLimiter {
  private windows = new Map<string, { start: number; count: number }>();

  readonly limit: number;
  private readonly maxKeys: number;
  private readonly windowMs: number;
  private readonly now: () => number;

  constructor(limit: number, maxKeys: number, windowMs = 60_000, now: () => number = Date.now) {
    this.limit = limit;
    this.maxKeys = maxKeys;
    this.windowMs = windowMs;
    this.now = now;
  }

  /** Counts one request for `key`; says whether it is allowed and what remains. */
  hit(key: string): { allowed: boolean; limit: number; remaining: number; resetAt: number } {
    const now = this.now();
    let w = this.windows.get(key);
    if (!w || now - w.start >= this.windowMs) {
      w = { start: now - (now % this.windowMs), count: 0 };
    }
    this.windows.delete(key);
    this.windows.set(key, w);
    if (this.windows.size > this.maxKeys) {
      const oldest = this.windows.keys().next().value;
      if (oldest !== undefined) this.windows.delete(oldest);
    }
    w.count++;
    const resetAt = Math.ceil((w.start + this.windowMs) / 1000);
    return {
      allowed: w.count <= this.limit,
      limit: this.limit,
      remaining: Math.max(0, this.limit - w.count),
      resetAt,
    };
  }

  get size(): number {
    return this.windows.size;
  }
}
