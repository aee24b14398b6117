import { Code, ConnectError, type Interceptor } from "@connectrpc/connect";
import type { AppContext } from "../context.ts";
import { AppError } from "../errors.ts";
import { authenticate } from "../http/middleware/auth.ts";
import type { RateLimiter, RateLimits } from "../platform/rate-limiter.ts";
import { kActor, kClientIp } from "./call-context.ts";
import { toConnectError } from "./connect-error.ts";

type AnyRequest = Parameters<Parameters<Interceptor>[0]>[0];
type AnyResponse = Awaited<ReturnType<Parameters<Interceptor>[0]>>;

/** `attic.v1.FileService/GetFile`: the metric label of a call. */
const procedureOf = (req: AnyRequest) => `${req.service.typeName}/${req.method.name}`;

/** The lowercase Connect code name of an error, as in Connect JSON (`not_found`). */
function codeName(err: unknown): string {
  const code = err instanceof ConnectError ? err.code : Code.Internal;
  return Code[code].replace(/[A-Z]/g, (c, i) => (i ? "_" : "") + c.toLowerCase());
}

/**
 * Wraps a server stream so that failures while it is being written are
 * mapped like any other error and `done` runs once it ends either way.
 */
async function* guardStream<T>(
  messages: AsyncIterable<T>,
  ctx: AppContext,
  done: (code: string) => void,
): AsyncIterable<T> {
  try {
    yield* messages;
    done("ok");
  } catch (err) {
    const mapped = toConnectError(err, ctx.log);
    done(codeName(mapped));
    throw mapped;
  }
}

/**
 * Outermost interceptor: counts every call in `attic_rpc_requests_total` by
 * procedure and code, and maps every error (AppError through the error
 * table, unknown errors to a logged, generic Internal), including failures
 * in the middle of a server stream.
 */
export function observeInterceptor(ctx: AppContext): Interceptor {
  return (next) => async (req) => {
    const procedure = procedureOf(req);
    const done = (code: string) => ctx.metrics.rpcRequests.inc({ procedure, code });
    let res: AnyResponse;
    try {
      res = await next(req);
    } catch (err) {
      const mapped = toConnectError(err, ctx.log);
      done(codeName(mapped));
      throw mapped;
    }
    if (!res.stream) {
      done("ok");
      return res;
    }
    return { ...res, message: guardStream(res.message, ctx, done) };
  };
}

/** Counts one call of `key`; throws RESOURCE_EXHAUSTED (the REST 429) when over the limit. */
function hit(ctx: AppContext, name: string, limiter: RateLimiter, key: string): void {
  const r = limiter.hit(key);
  if (r.allowed) return;
  ctx.metrics.rateLimited.inc({ limiter: name });
  throw new AppError("RATE_LIMITED", "rate limit exceeded, retry in 60 seconds", {
    limit: r.limit,
    retry_after_seconds: 60,
  });
}

/**
 * Authenticates every call with the same credentials as REST (bearer JWT or
 * X-API-Key), then applies the per-user limit shared with REST. Failed
 * credentials count against the client's address, so guessing is limited
 * over RPC exactly as over REST. The actor is handed to methods through
 * `kActor`.
 */
export function authInterceptor(ctx: AppContext, limits: RateLimits): Interceptor {
  const enabled = ctx.cfg.rate_limit.enabled;
  return (next) => async (req) => {
    let actor: Awaited<ReturnType<typeof authenticate>>;
    try {
      actor = await authenticate(ctx, req.header);
    } catch (err) {
      if (enabled) hit(ctx, "global", limits.ip, req.contextValues.get(kClientIp));
      throw err;
    }
    if (enabled) hit(ctx, "user", limits.user, actor.userId);
    req.contextValues.set(kActor, actor);
    return next(req);
  };
}
