import type { MiddlewareHandler } from "hono";
import { AppError } from "../../errors.ts";
import type { Metrics } from "../../platform/metrics.ts";
import type { RateLimiter } from "../../platform/rate-limiter.ts";
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
  const r = limiter.hit(key);
  const headers = {
    "X-RateLimit-Limit": String(r.limit),
    "X-RateLimit-Remaining": String(r.remaining),
    "X-RateLimit-Reset": String(r.resetAt),
  };
  for (const [k, v] of Object.entries(headers)) c.header(k, v);
  if (r.allowed) return undefined;
  metrics.rateLimited.inc({ limiter: name });
  const err = new AppError("RATE_LIMITED", "rate limit exceeded, retry in 60 seconds", {
    limit: r.limit,
    retry_after_seconds: 60,
  });
  return errorResponse(c, err, {
    ...headers,
    "Retry-After": String(Math.max(1, r.resetAt - Math.floor(Date.now() / 1000))),
  });
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
