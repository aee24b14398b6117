import type { MiddlewareHandler } from "hono";
import type { AppContext } from "../../context.ts";
import { requirePermission } from "../../domain/actor.ts";
import { AppError } from "../../errors.ts";
import type { RateLimiter } from "../../platform/rate-limiter.ts";
import type { Env } from "../env.ts";
import { checkRateLimit } from "./rate-limit.ts";

/** Reads the credential of a request: a bearer JWT or an X-API-Key, never a query parameter. */
export function credentialOf(headers: {
  get(name: string): string | null | undefined;
}): { kind: "bearer"; token: string } | { kind: "apikey"; key: string } | undefined {
  const authorization = headers.get("authorization");
  if (authorization) {
    const m = /^Bearer\s+([A-Za-z0-9._~+/=-]+)\s*$/i.exec(authorization);
    if (!m) throw new AppError("UNAUTHENTICATED", "malformed Authorization header");
    return { kind: "bearer", token: m[1]! };
  }
  const key = headers.get("x-api-key");
  if (key) return { kind: "apikey", key: key.trim() };
  return undefined;
}

/** Turns a request's credential into an Actor or throws 401. Shared by REST and RPC. */
export async function authenticate(
  ctx: AppContext,
  headers: { get(name: string): string | null | undefined },
) {
  const cred = credentialOf(headers);
  if (!cred) throw new AppError("UNAUTHENTICATED", "authentication required");
  return cred.kind === "bearer"
    ? ctx.services.auth.authenticateBearer(cred.token)
    : ctx.services.auth.authenticateApiKey(cred.key);
}

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
      actor = await authenticate(ctx, headers);
    } catch (err) {
      // A failed credential counts against the client's address, so guessing
      // is limited. A request with no credential at all was already counted
      // once, as anonymous traffic, by the global limit: not twice.
      if (ctx.cfg.rate_limit.enabled && (headers.get("authorization") || headers.get("x-api-key"))) {
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
