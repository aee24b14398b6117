import type { MiddlewareHandler } from "hono";
import { routePath } from "hono/route";
import { type Logger, unredacted } from "../../log.ts";
import type { Metrics } from "../../platform/metrics.ts";
import { requestIdOf } from "../../platform/request-id.ts";
import type { Env } from "../env.ts";

/**
 * Paths that hold a credential, logged masked: a public share link's token
 * (it opens the share to anyone) and the stream token of an HLS playlist or
 * segment (`/hls/t/<st>/…`: it reads the file for hours).
 */
const SHARE_LINK = /^\/s\/[^/]+/;
const HLS_TOKEN = /\/hls\/t\/[^/]+/;
const loggedPath = (path: string) =>
  path.startsWith("/s/")
    ? path.replace(SHARE_LINK, "/s/[redacted]")
    : path.replace(HLS_TOKEN, "/hls/t/[redacted]");

/** Method labels of the duration histogram; HTTP/2 lets a client send any token, which would grow it without bound. */
const METHODS = new Set(["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"]);

/**
 * Gives each request an id (X-Request-Id), a child logger, and on completion
 * one log line (method, route, status, duration: never headers or bodies) and
 * a duration sample. The line's fields are all built here, so it skips
 * the redaction pass (`unredacted`); the handlers' logger keeps it.
 */
export function requestLog(log: Logger, metrics: Metrics): MiddlewareHandler<Env> {
  const lines = unredacted(log);
  return async function requestLogMiddleware(c, next) {
    const start = performance.now();
    const requestId = requestIdOf(c.req.header("x-request-id"));
    const child = log.child({ req_id: requestId });
    c.set("requestId", requestId);
    c.set("log", child);
    await next();
    c.res.headers.set("X-Request-Id", requestId);
    const route = c.finalized ? routePath(c) : "unmatched";
    const status = c.res.status;
    const seconds = (performance.now() - start) / 1000;
    const method = METHODS.has(c.req.method) ? c.req.method : "OTHER";
    metrics.httpRequestDuration.observe({ method, route, status: String(status) }, seconds);
    const line = {
      req_id: requestId,
      method: c.req.method,
      route,
      path: loggedPath(c.req.path),
      status,
      ms: Math.round(seconds * 1000 * 10) / 10,
      user: c.get("actor")?.userId,
    };
    if (status >= 500) lines.error(line, "request failed");
    else lines.info(line, "request");
  };
}
