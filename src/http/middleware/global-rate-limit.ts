import type { MiddlewareHandler } from "hono";
import type { AppContext } from "../../context.ts";
import { authenticate, hasCredential } from "../../domain/auth/authenticate.ts";
import type { RateLimiter } from "../../platform/rate-limiter.ts";
import { DAV_PREFIX } from "../dav/prefix.ts";
import type { Env } from "../env.ts";
import { checkRateLimit } from "./rate-limit.ts";

export interface GlobalRateLimitOptions {
  ctx: AppContext;
  /** The per-address limiter (rate_limit.global_per_minute). */
  limiter: RateLimiter;
  /** Paths never limited (probes, scrapers). */
  exempt: (path: string) => boolean;
}

/**
 * The per-address limit on unauthenticated traffic. A request that carries a
 * credential is left to the per-user limit of requireAuth, but only if the
 * credential really identifies someone: one that is never checked (a public
 * route) or fails costs the address like any anonymous request, and once the
 * address is out of budget a credential must prove itself before the request
 * goes on. Otherwise any `Authorization: Bearer x` header would skip the limit.
 */
export function globalRateLimit(opts: GlobalRateLimitOptions): MiddlewareHandler<Env> {
  const { ctx, limiter } = opts;
  return async function globalRateLimitMiddleware(c, next) {
    if (opts.exempt(c.req.path)) return next();
    const ip = c.get("clientIp");
    const headers = { get: (n: string) => c.req.header(n) };
    // HLS playlists and segments below a master playlist carry it in the path (/hls/t/<st>/…).
    const streamToken = c.req.query("st") !== undefined || c.req.path.includes("/hls/t/");
    if (streamToken && !hasCredential(headers)) {
      // A stream token: streamTokenAuth counts a valid one against its
      // user's media budget. Anything else (a bad token, a route that takes
      // none) is anonymous traffic and costs the address, counted afterwards.
      await next();
      if (!c.get("actor")) limiter.hit(ip);
      return;
    }
    if (!hasCredential(headers)) {
      const refused = checkRateLimit(c, "global", limiter, ctx.metrics, ip);
      return refused ?? next();
    }
    // WebDAV's Basic credentials are proven by its handler, before any work,
    // failures counted like logins: `authenticate` knows only bearer and key.
    const davBasic =
      (c.req.path === DAV_PREFIX || c.req.path.startsWith(`${DAV_PREFIX}/`)) &&
      /^basic\s/i.test(c.req.header("authorization") ?? "");
    if (limiter.exhausted(ip) && !davBasic) {
      const valid = await authenticate(ctx.services.auth, headers).then(
        () => true,
        () => false,
      );
      if (!valid) return checkRateLimit(c, "global", limiter, ctx.metrics, ip);
    }
    await next();
    // requireAuth already counted a failed credential (its 401).
    if (!c.get("actor") && c.res.status !== 401) limiter.hit(ip);
  };
}
