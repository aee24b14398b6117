import { AppError } from "../errors.ts";
import { ipRateKey } from "./ip-key.ts";
import type { Metrics } from "./metrics.ts";

/**
 * Fixed-window counters keyed by client (IP or user id): a key's window
 * opens at its first request and lasts `windowMs` (a minute), so a client
 * gets its full budget whenever it starts, not a share of the clock's minute.
 * Memory is bounded: past `maxKeys` the least recently touched keys
 * are forgotten (a Map keeps insertion order; touching re-inserts).
 */
export class RateLimiter {
  private windows = new Map<string, { start: number; count: number }>();

  readonly limit: number;
  private readonly maxKeys: number;
  private readonly windowMs: number;
  private readonly now: () => number;
  /** Maps a caller's key to the key counted (client addresses: IPv6 by /64). */
  private readonly keyOf: (key: string) => string;

  constructor(
    limit: number,
    maxKeys: number,
    windowMs = 60_000,
    now: () => number = Date.now,
    keyOf: (key: string) => string = (k) => k,
  ) {
    this.limit = limit;
    this.maxKeys = maxKeys;
    this.windowMs = windowMs;
    this.now = now;
    this.keyOf = keyOf;
  }

  /** Counts one request for `key`; says whether it is allowed and what remains. */
  hit(rawKey: string): { allowed: boolean; limit: number; remaining: number; resetAt: number } {
    const key = this.keyOf(rawKey);
    const now = this.now();
    let w = this.windows.get(key);
    if (!w || now - w.start >= this.windowMs) {
      w = { start: now, count: 0 };
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

  /** True when `key` has used its whole budget in its current window (counts nothing). */
  exhausted(key: string): boolean {
    const w = this.windows.get(this.keyOf(key));
    return w !== undefined && this.now() - w.start < this.windowMs && w.count >= this.limit;
  }

  get size(): number {
    return this.windows.size;
  }
}

/** The limiters of one server, shared by REST and RPC so a user's budget is one budget. */
export interface RateLimits {
  /** Per client address: unauthenticated traffic and failed credentials. */
  ip: RateLimiter;
  /** Per address: login and register together. */
  login: RateLimiter;
  /** Per address: the other auth endpoints. */
  auth: RateLimiter;
  /** Per authenticated user, REST and RPC together. */
  user: RateLimiter;
  /** Per authenticated user: media reads (streams, ranges, stream tokens, thumbnails). */
  media: RateLimiter;
}

/** Builds the limiters from the `rate_limit` config section. */
export function createRateLimits(rl: {
  global_per_minute: number;
  login_per_minute: number;
  auth_per_minute: number;
  user_per_minute: number;
  media_per_minute: number;
  max_tracked_clients: number;
}): RateLimits {
  const perAddress = (limit: number) =>
    new RateLimiter(limit, rl.max_tracked_clients, 60_000, Date.now, ipRateKey);
  return {
    ip: perAddress(rl.global_per_minute),
    login: perAddress(rl.login_per_minute),
    auth: perAddress(rl.auth_per_minute),
    user: new RateLimiter(rl.user_per_minute, rl.max_tracked_clients),
    media: new RateLimiter(rl.media_per_minute, rl.max_tracked_clients),
  };
}

/**
 * Counts one request of `key` against `limiter`, for REST and RPC alike: the
 * X-RateLimit-* headers to send, and, past the limit, the RATE_LIMITED error
 * (with Retry-After added to the headers).
 */
export function countRequest(
  limiter: RateLimiter,
  metrics: Metrics,
  name: string,
  key: string,
): { headers: Record<string, string>; refused?: AppError } {
  const r = limiter.hit(key);
  const headers: Record<string, string> = {
    "X-RateLimit-Limit": String(r.limit),
    "X-RateLimit-Remaining": String(r.remaining),
    "X-RateLimit-Reset": String(r.resetAt),
  };
  if (r.allowed) return { headers };
  metrics.rateLimited.inc({ limiter: name });
  headers["Retry-After"] = String(Math.max(1, r.resetAt - Math.floor(Date.now() / 1000)));
  const refused = new AppError("RATE_LIMITED", "rate limit exceeded, retry in 60 seconds", {
    limit: r.limit,
    retry_after_seconds: 60,
  });
  return { headers, refused };
}
