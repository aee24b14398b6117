import type { Handler, MiddlewareHandler } from "hono";
import { cors } from "hono/cors";
import type { AppContext } from "../context.ts";
import { AppError } from "../errors.ts";
import { loadOnce } from "../platform/lazy.ts";
import type { RateLimiter, RateLimits } from "../platform/rate-limiter.ts";
import { clientIp } from "./client-ip.ts";
import { DAV_PREFIX } from "./dav/prefix.ts";
import type { Env, Router } from "./env.ts";
import { requireAuth } from "./middleware/auth.ts";
import { globalRateLimit } from "./middleware/global-rate-limit.ts";
import { jsonGuard } from "./middleware/json-guard.ts";
import { rateLimit } from "./middleware/rate-limit.ts";
import { requestLog } from "./middleware/request-log.ts";
import { errorResponse, toAppError } from "./on-error.ts";
import { type Guards, newRouter } from "./router.ts";
import { mountRoutes } from "./routes/index.ts";
import { sharePages } from "./routes/shares.ts";
import { webUi } from "./static.ts";
import { swaggerRoutes } from "./swagger.ts";

/** The headers of resumable uploads (routes/uploads.ts, tus 1.0.0) a browser client on an allowed origin sends. */
const TUS_REQUEST_HEADERS = [
  "Tus-Resumable",
  "Upload-Length",
  "Upload-Defer-Length",
  "Upload-Metadata",
  "Upload-Offset",
];
/** …and reads: the new upload's Location, how far it got, and the stored file's id. */
const TUS_RESPONSE_HEADERS = [
  "Location",
  "Tus-Resumable",
  "Tus-Version",
  "Tus-Extension",
  "Tus-Max-Size",
  "Upload-Length",
  "Upload-Offset",
  "Upload-Metadata",
  "Upload-Defer-Length",
  "Upload-Expires",
  "Upload-File-Id",
];

/** Paths never rate limited: probes and scrapers call them on a timer. */
const UNLIMITED = new Set(["/health", "/api/v1/health", "/metrics"]);

/**
 * WebDAV under DAV_PREFIX (the path `/dav` itself included), its module and
 * xmldom loaded by the first WebDAV request rather than at start.
 */
function webDav(ctx: AppContext, limits: RateLimits): Handler<Env> {
  const load = loadOnce(async () => (await import("./dav/dav.ts")).davHandler(ctx, limits));
  return async function webDavOnFirstUse(c) {
    return (await load())(c);
  };
}

/**
 * Builds the REST application: middleware in order (request log, security
 * headers, CORS, client address, per-IP limit, JSON guard), every route
 * module, the OpenAPI document, and the error mapping. `limits` are shared
 * with the RPC interceptors (server.ts builds them once).
 */
export function createApp(ctx: AppContext, limits: RateLimits): Router {
  const rl = ctx.cfg.rate_limit;
  const off: MiddlewareHandler<Env> = async (_c, next) => next();
  const ipLimit = (name: string, l: RateLimiter): MiddlewareHandler<Env> =>
    rl.enabled ? rateLimit({ name, limiter: l, metrics: ctx.metrics, key: (c) => c.get("clientIp") }) : off;
  const guards: Guards = {
    auth: (permission) => requireAuth(ctx, { user: limits.user, budget: "user", ip: limits.ip }, permission),
    media: (permission) =>
      requireAuth(ctx, { user: limits.media, budget: "media", ip: limits.ip }, permission),
    mediaBudget: limits.media,
    login: ipLimit("login", limits.login),
    authEndpoints: ipLimit("auth", limits.auth),
  };

  const app = newRouter();
  app.use(requestLog(ctx.log, ctx.metrics));
  const corsMiddleware = cors({
    origin: (origin) => (ctx.cfg.server.cors_origins.includes(origin) ? origin : null),
    allowHeaders: [
      "Authorization",
      "X-API-Key",
      "Content-Type",
      "Range",
      "If-Range",
      "X-Content-SHA256",
      ...TUS_REQUEST_HEADERS,
    ],
    exposeHeaders: [
      "Content-Length",
      "Content-Range",
      "Content-Disposition",
      "ETag",
      "X-Request-Id",
      "X-RateLimit-Limit",
      "X-RateLimit-Remaining",
      "X-RateLimit-Reset",
      ...TUS_RESPONSE_HEADERS,
    ],
    maxAge: 600,
  });
  // WebDAV answers OPTIONS itself (its DAV and Allow headers); browsers have no business there cross-origin.
  app.use((c, next) =>
    c.req.path.startsWith(`${DAV_PREFIX}/`) || c.req.path === DAV_PREFIX ? next() : corsMiddleware(c, next),
  );
  app.use(async (c, next) => {
    c.set("clientIp", clientIp(c, ctx.cfg.server.trust_proxy));
    await next();
  });
  if (rl.enabled) {
    // Unauthenticated traffic is limited per address; authenticated traffic per user (requireAuth).
    app.use(globalRateLimit({ ctx, limiter: limits.ip, exempt: (path) => UNLIMITED.has(path) }));
  }
  app.use("/api/*", jsonGuard(ctx.cfg.server.max_json_bytes));

  mountRoutes(app, ctx, guards);
  app.all(`${DAV_PREFIX}/*`, webDav(ctx, limits));
  app.route("/s", sharePages(ctx, limits));

  app.openAPIRegistry.registerComponent("securitySchemes", "BearerAuth", {
    type: "http",
    scheme: "bearer",
    bearerFormat: "JWT",
  });
  app.openAPIRegistry.registerComponent("securitySchemes", "ApiKeyAuth", {
    type: "apiKey",
    in: "header",
    name: "X-API-Key",
  });
  app.doc("/swagger/doc.json", {
    openapi: "3.0.3",
    info: {
      title: "Attic REST API",
      version: ctx.version,
      description: "Self-hosted file and media server. Errors are `{error: {code, message, details?}}`.",
    },
  });

  // The browser UI last: every API route above wins, unknown API paths stay JSON 404s.
  app.get("*", webUi());
  app.route("/", swaggerRoutes(ctx));

  app.notFound((c) => errorResponse(c, new AppError("NOT_FOUND", "no such endpoint")));
  app.onError((err, c) => errorResponse(c, toAppError(err, c.get("log") ?? ctx.log)));
  return app;
}
