import { Code, ConnectError, type Interceptor } from "@connectrpc/connect";
import type { AppContext } from "../context.ts";
import { authenticate } from "../domain/auth/authenticate.ts";
import { countRequest, type RateLimiter, type RateLimits } from "../platform/rate-limiter.ts";
import { requestIdOf } from "../platform/request-id.ts";
import { kActor, kClientIp } from "./call-context.ts";
import { toConnectError } from "./connect-error.ts";

type AnyRequest = Parameters<Parameters<Interceptor>[0]>[0];
type AnyResponse = Awaited<ReturnType<Parameters<Interceptor>[0]>>;

/** `attic.v1.FileService/GetFile`: the metric label of a call. */
const procedureOf = (req: AnyRequest) => `${req.service.typeName}/${req.method.name}`;

/** The lowercase Connect code name of an error, as in Connect JSON (`not_found`). */
export function codeName(err: unknown): string {
  const code = err instanceof ConnectError ? err.code : Code.Internal;
  return Code[code].replace(/[A-Z]/g, (c, i) => (i ? "_" : "") + c.toLowerCase());
}

/**
 * The end of one call: counted in `attic_rpc_requests_total` by procedure
 * and code, and one log line (never headers or messages). For the
 * interceptor and for calls answered outside the router (download-hot-path.ts).
 */
export function recordCall(
  ctx: AppContext,
  call: { procedure: string; code: string; start: number; requestId: string; userId: string | undefined },
): void {
  ctx.metrics.rpcRequests.inc({ procedure: call.procedure, code: call.code });
  const line = {
    procedure: call.procedure,
    code: call.code,
    ms: Math.round((performance.now() - call.start) * 10) / 10,
    user: call.userId,
    req_id: call.requestId,
  };
  if (call.code === "internal" || call.code === "unknown") ctx.log.error(line, "rpc failed");
  else ctx.log.info(line, "rpc");
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
 * Outermost interceptor: gives the call a request id (X-Request-Id), maps
 * every error (AppError through the error table, unknown errors to a
 * logged, generic Internal, also in the middle of a server stream), and on completion counts it in `attic_rpc_requests_total`
 * by procedure and code and logs one line (never headers or messages). The
 * security headers are set on every response by withSecurityHeaders.
 */
export function observeInterceptor(ctx: AppContext): Interceptor {
  return (next) => async (req) => {
    const start = performance.now();
    const procedure = procedureOf(req);
    const requestId = requestIdOf(req.header.get("x-request-id"));
    const done = (code: string) =>
      recordCall(ctx, { procedure, code, start, requestId, userId: req.contextValues.get(kActor)?.userId });
    let res: AnyResponse;
    try {
      res = await next(req);
    } catch (err) {
      const mapped = toConnectError(err, ctx.log);
      mapped.metadata.set("X-Request-Id", requestId);
      done(codeName(mapped));
      throw mapped;
    }
    res.header.set("X-Request-Id", requestId);
    if (!res.stream) {
      done("ok");
      return res;
    }
    return { ...res, message: guardStream(res.message, ctx, done) };
  };
}

/**
 * Counts one call of `key`; throws RESOURCE_EXHAUSTED (the REST 429, with
 * the X-RateLimit-* headers as metadata) when over the limit, else answers
 * the headers for the response.
 */
export function hit(
  ctx: AppContext,
  name: string,
  limiter: RateLimiter,
  key: string,
): Record<string, string> {
  const { headers, refused } = countRequest(limiter, ctx.metrics, name, key);
  if (!refused) return headers;
  const err = toConnectError(refused, ctx.log);
  for (const [k, v] of Object.entries(headers)) err.metadata.set(k, v);
  throw err;
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
      actor = await authenticate(ctx.services.auth, req.header);
    } catch (err) {
      if (enabled) hit(ctx, "global", limits.ip, req.contextValues.get(kClientIp));
      throw err;
    }
    const headers = enabled ? hit(ctx, "user", limits.user, actor.userId) : {};
    req.contextValues.set(kActor, actor);
    const res = await next(req);
    for (const [k, v] of Object.entries(headers)) res.header.set(k, v);
    return res;
  };
}
