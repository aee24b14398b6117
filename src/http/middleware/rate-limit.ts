import type { MiddlewareHandler } from "hono";
import type { Metrics } from "../../platform/metrics.ts";
import { countRequest, type RateLimiter } from "../../platform/rate-limiter.ts";
import type { Ctx, Env } from "../env.ts";
import { errorResponse } from "../on-error.ts";

export interface RateLimitOptions {
  name: string;
  limiter: RateLimiter;
  metrics: Metrics;
  /** The key to count under; undefined skips the limit for this request. */
  key: (c: Ctx) => string | undefined;
}

/**
 * Counts one request of `key`. Returns the 429 response when over the limit,
 * else undefined; in both cases the X-RateLimit-* headers go on `c`.
 */
export function checkRateLimit(
  c: Ctx,
  name: string,
  limiter: RateLimiter,
  metrics: Metrics,
  key: string,
): Response | undefined {
  const { headers, refused } = countRequest(limiter, metrics, name, key);
  // Set on the context (not only on an error response): they replace what an
  // earlier limiter of this request set.
  for (const [k, v] of Object.entries(headers)) c.header(k, v);
  return refused ? errorResponse(c, refused, headers) : undefined;
}

/** Middleware form of checkRateLimit. */
export function rateLimit(opts: RateLimitOptions): MiddlewareHandler<Env> {
  return async function rateLimitMiddleware(c, next) {
    const key = opts.key(c);
    if (key === undefined) return next();
    const refused = checkRateLimit(c, opts.name, opts.limiter, opts.metrics, key);
    if (refused) return refused;
    await next();
  };
}
