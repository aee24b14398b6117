import type { IncomingMessage, ServerResponse } from "node:http";
import type { Http2ServerRequest, Http2ServerResponse } from "node:http2";
import type { AppContext } from "../context.ts";
import { type Actor, requirePermission } from "../domain/actor.ts";
import { authenticate } from "../domain/auth/authenticate.ts";
import { ListFilesInput } from "../domain/files/files.schemas.ts";
import { type AppError, errorBody } from "../errors.ts";
import { unredacted } from "../log.ts";
import { resolveClientIp } from "../platform/client-ip.ts";
import { isId } from "../platform/ids.ts";
import { countRequest, type RateLimiter, type RateLimits } from "../platform/rate-limiter.ts";
import { requestIdOf } from "../platform/request-id.ts";
import { securedHead } from "../platform/security-headers.ts";
import { planContent, writeContent } from "./file-response.ts";
import { toAppError } from "./on-error.ts";

type Req = IncomingMessage | Http2ServerRequest;
type Res = ServerResponse | Http2ServerResponse;

/** The routes taken here, with the route label the router's request log gives them. */
type Hot = { path: string } & (
  | { route: "/api/v1/files"; query: Record<string, string> }
  | { route: "/api/v1/files/:id"; id: string }
  | { route: "/api/v1/files/:id/download" | "/api/v1/files/:id/stream"; id: string; st?: string }
);

const FILES = "/api/v1/files";
const ONE = /^\/api\/v1\/files\/([0-9a-fA-F-]{36})(\/download|\/stream)?$/;

/**
 * The requests a household's server lives on (a file's record, a folder
 * listing, a download, a player's range request), answered on the Node
 * request and response instead of through the router's web Request and
 * Response objects, which cost more than the rest of such a request. Not a
 * side door: every step is the router's own, in the same order and from the
 * same functions (authenticate, the per-user and per-address limiters with
 * their headers, the entry permission, the files service with its
 * organization scoping and folder grants, the error table, the content plan
 * of file-response.ts, the request log line and duration metric). What it
 * does not take falls through to the router, which answers exactly as it
 * always has: anything but GET/HEAD, a cross-origin request (CORS), a
 * request without a credential, a stream token beside a credential, an id
 * or query the schemas would refuse, and an address out of budget.
 *
 * Returns false when the request is not taken.
 */
export function hotPaths(ctx: AppContext, limits: RateLimits): (req: Req, res: Res) => boolean {
  const files = ctx.services.files;
  const limited = ctx.cfg.rate_limit.enabled;
  const trustProxy = ctx.cfg.server.trust_proxy;
  const encoded = new WeakMap<object, Buffer>();
  const lines = unredacted(ctx.log);

  function match(url: string): Hot | undefined {
    const q = url.indexOf("?");
    const path = q < 0 ? url : url.slice(0, q);
    const params = q < 0 ? undefined : new URLSearchParams(url.slice(q + 1));
    if (path === FILES) {
      const query: Record<string, string> = {};
      if (params) {
        for (const [k, v] of params) {
          // A repeated parameter is an array to the router's validator: its error, not ours.
          if (k in query) return undefined;
          query[k] = v;
        }
      }
      return { path, route: FILES, query };
    }
    const m = ONE.exec(path);
    if (!m || !isId(m[1]!)) return undefined;
    if (!m[2]) return { path, route: "/api/v1/files/:id", id: m[1]! };
    const st = params?.getAll("st");
    if (st && st.length > 1) return undefined;
    return {
      path,
      route: m[2] === "/download" ? "/api/v1/files/:id/download" : "/api/v1/files/:id/stream",
      id: m[1]!,
      ...(st?.length ? { st: st[0] } : {}),
    };
  }

  return function hotPath(req, res) {
    const method = req.method;
    if (method !== "GET" && method !== "HEAD") return false;
    const url = req.url ?? "";
    if (!url.startsWith(FILES)) return false;
    const h = req.headers;
    if (h.origin !== undefined) return false;
    const hot = match(url);
    if (!hot) return false;
    const credential = !!h.authorization || !!h["x-api-key"];
    const st = "st" in hot ? hot.st : undefined;
    if (st !== undefined ? credential : !credential) return false;
    let listQuery: unknown;
    if (hot.route === FILES) {
      const parsed = ListFilesInput.safeParse(hot.query);
      if (!parsed.success) return false;
      listQuery = parsed.data;
    }
    const ip = limited ? resolveClientIp(req.socket?.remoteAddress, h["x-forwarded-for"], trustProxy) : "";
    if (limited && st === undefined && limits.ip.exhausted(ip)) return false;
    void answer(req, res as ServerResponse, hot, st, listQuery, ip);
    return true;
  };

  async function answer(
    req: Req,
    res: ServerResponse,
    hot: Hot,
    st: string | undefined,
    listQuery: unknown,
    ip: string,
  ): Promise<void> {
    const start = performance.now();
    const h = req.headers;
    const requestId = requestIdOf(h["x-request-id"] as string | undefined);
    const head: Record<string, string> = { "x-request-id": requestId };
    const media = hot.route !== FILES && hot.route !== "/api/v1/files/:id";
    let actor: Actor | undefined;
    let status = 200;
    const count = (name: string, limiter: RateLimiter, key: string): AppError | undefined => {
      const counted = countRequest(limiter, ctx.metrics, name, key);
      Object.assign(head, counted.headers);
      return counted.refused;
    };
    const fail = (err: AppError, extra?: Record<string, string>) => {
      status = err.status;
      sendJson(req, res, status, extra ? [head, extra] : [head], JSON.stringify(errorBody(err)));
    };
    try {
      if (st !== undefined) {
        // As streamTokenAuth: a bad token is anonymous traffic, counted against the address.
        try {
          actor = await ctx.services.streamTokens.authenticate(st, "id" in hot ? hot.id : "");
        } catch (err) {
          if (limited) limits.ip.hit(ip);
          throw err;
        }
        const refused = limited ? count("media", limits.media, actor.userId) : undefined;
        if (refused) return fail(refused);
      } else {
        // As requireAuth: a failed credential costs the address; a good one the user's budget.
        try {
          actor = await authenticate(ctx.services.auth, { get: (n) => h[n] as string | undefined });
        } catch (err) {
          const refused = limited ? count("global", limits.ip, ip) : undefined;
          if (refused) return fail(refused);
          throw err;
        }
        const refused = limited
          ? count(media ? "media" : "user", media ? limits.media : limits.user, actor.userId)
          : undefined;
        if (refused) return fail(refused);
        requirePermission(actor, "file:read");
      }
      if (hot.route === "/api/v1/files/:id") {
        sendJson(req, res, 200, [head], JSON.stringify(files.get(actor, hot.id)));
        return;
      }
      if (hot.route === FILES) {
        // A page is the same object until the database changes (page-cache.ts): encode it once.
        const page = files.list(actor, listQuery);
        let body = encoded.get(page);
        if (!body) {
          body = Buffer.from(JSON.stringify(page));
          encoded.set(page, body);
        }
        sendJson(req, res, 200, [head], body);
        return;
      }
      const download = hot.route === "/api/v1/files/:id/download";
      const opened = download
        ? await files.openContent(actor, hot.id, { verify: false })
        : await files.openMedia(actor, hot.id, { verify: false });
      files.countDownload(download ? "download" : "stream");
      const disposition = download ? "attachment" : "inline";
      const plan = planContent((n) => h[n] as string | undefined, req.method ?? "GET", opened, disposition);
      if (plan.kind === "error") return fail(plan.error, plan.headers);
      status = plan.status;
      if (plan.kind === "head") {
        res.writeHead(plan.status, securedHead(head, plan.headers));
        res.end();
        return;
      }
      const missing = await writeContent(
        res,
        plan.status,
        securedHead(head, plan.headers),
        opened,
        plan.part,
        ctx.log,
      );
      if (missing) fail(missing);
    } catch (err) {
      if (res.headersSent) {
        res.destroy();
        return;
      }
      fail(toAppError(err, ctx.log.child({ req_id: requestId })));
    } finally {
      const seconds = (performance.now() - start) / 1000;
      ctx.metrics.httpRequestDuration.observe(
        { method: req.method ?? "GET", route: hot.route, status: String(status) },
        seconds,
      );
      const line = {
        req_id: requestId,
        method: req.method,
        route: hot.route,
        path: hot.path,
        status,
        ms: Math.round(seconds * 1000 * 10) / 10,
        user: actor?.userId,
      };
      if (status >= 500) lines.error(line, "request failed");
      else lines.info(line, "request");
    }
  }
}

/** A JSON answer with its length, the headers of `parts` and the security headers; HEAD gets the head alone. */
function sendJson(
  req: Req,
  res: ServerResponse,
  status: number,
  parts: Record<string, string>[],
  body: string | Buffer,
) {
  const length = typeof body === "string" ? Buffer.byteLength(body) : body.length;
  res.writeHead(
    status,
    securedHead(...parts, { "content-type": "application/json", "content-length": String(length) }),
  );
  if (req.method === "HEAD") res.end();
  else res.end(body);
}
