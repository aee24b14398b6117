import type { MiddlewareHandler } from "hono";
import type { AppContext } from "../../context.ts";
import { requirePermission } from "../../domain/actor.ts";
import { authenticate, hasCredential } from "../../domain/auth/authenticate.ts";
import type { RateLimiter } from "../../platform/rate-limiter.ts";
import type { Env } from "../env.ts";
import { checkRateLimit } from "./rate-limit.ts";

/**
 * Authenticates the caller (401 otherwise), applies the per-user rate limit,
 * and, when `permission` is given, checks it at the entry (403).
 */
export function requireAuth(
  ctx: AppContext,
  limits: {
    /** The per-user budget this route draws on, and its name in metrics ("user" or "media"). */
    user: RateLimiter;
    budget: string;
    ip: RateLimiter;
  },
  permission?: string,
): MiddlewareHandler<Env> {
  return async function requireAuthMiddleware(c, next) {
    let actor: Awaited<ReturnType<typeof authenticate>>;
    const headers = { get: (n: string) => c.req.header(n) };
    try {
      actor = await authenticate(ctx.services.auth, headers);
    } catch (err) {
      // A failed credential counts against the client's address, so guessing
      // is limited. A request with no credential at all was already counted
      // once, as anonymous traffic, by the global limit: not twice.
      if (ctx.cfg.rate_limit.enabled && hasCredential(headers)) {
        const refused = checkRateLimit(c, "global", limits.ip, ctx.metrics, c.get("clientIp"));
        if (refused) return refused;
      }
      throw err;
    }
    c.set("actor", actor);
    if (ctx.cfg.rate_limit.enabled) {
      const refused = checkRateLimit(c, limits.budget, limits.user, ctx.metrics, actor.userId);
      if (refused) return refused;
    }
    if (permission) requirePermission(actor, permission);
    await next();
  };
}
