import { createRoute, z } from "@hono/zod-openapi";
import type { MiddlewareHandler } from "hono";
import type { AppContext } from "../../context.ts";
import { IdParam } from "../../domain/ids.schemas.ts";
import { actorOf, type Env, type Router } from "../env.ts";
import { checkRateLimit } from "../middleware/rate-limit.ts";
import { errorResponses, type Guards, newRouter, SECURED } from "../router.ts";

/** Exported for the UI's types (web/src/lib/types.ts). */
export const StreamTokenSchema = z
  .object({
    token: z.string().openapi({
      description:
        "Pass as `?st=` to /files/{id}/stream, /download, /playback-info, /hls/… or /subtitles/… of this file",
    }),
    expires_at: z.string().openapi({ example: "2026-01-01T06:00:00.000Z" }),
  })
  .openapi("StreamToken");

const issueRoute = createRoute({
  method: "post",
  path: "/files/{id}/stream-token",
  tags: ["Files"],
  summary: "A short-lived token that lets a media element or link read this one file",
  description:
    "Browsers cannot send an Authorization header from `<video src>` or `<a download>`. The token (about 6 h) " +
    "is accepted only as the `st` query parameter of the read-only GETs of the same file (stream, download, " +
    "playback-info, HLS playlists and segments, subtitles; a folder's: its zip), and nowhere else.",
  security: SECURED,
  request: { params: IdParam },
  responses: {
    200: { description: "Token", content: { "application/json": { schema: StreamTokenSchema } } },
    ...errorResponses(401, 403, 404, 429),
  },
});

/** POST /files/:id/stream-token. */
export function streamTokenRoutes(ctx: AppContext, guards: Guards): Router {
  const r = newRouter();
  r.use("/files/:id/stream-token", guards.auth("file:read"));
  r.openapi(issueRoute, async (c) => {
    const { id } = c.req.valid("param");
    return c.json(await ctx.services.streamTokens.issue(actorOf(c), id), 200);
  });
  return r;
}

/**
 * Authentication for GET /files/:id/stream and /files/:id/download: with a
 * `st` query parameter, the stream token must be valid for that very `:id`
 * and the caller becomes a read-only actor (`file:read`) of the token's user;
 * without one, `fallback` (the usual guard) runs. Only read-only GETs of one
 * file use it (stream, download, playback, a folder's zip).
 */
export function streamTokenAuth(
  ctx: AppContext,
  guards: Pick<Guards, "media" | "mediaBudget">,
): MiddlewareHandler<Env> {
  const fallback = guards.media("file:read");
  return async function streamTokenAuthMiddleware(c, next) {
    // HLS media playlists and segments carry it in the path (/hls/t/<st>/…), everything else in the query.
    const st = c.req.param("st") ?? c.req.query("st");
    if (st === undefined) return fallback(c, next);
    // A bad token is anonymous traffic: the global limit counts it (it sees no actor).
    const actor = await ctx.services.streamTokens.authenticate(st, c.req.param("id") ?? "");
    c.set("actor", actor);
    // A good one counts against its user's media budget, never the address's:
    // a player scrubbing behind a shared address must not run into a 429.
    if (ctx.cfg.rate_limit.enabled) {
      const refused = checkRateLimit(c, "media", guards.mediaBudget, ctx.metrics, actor.userId);
      if (refused) return refused;
    }
    await next();
  };
}
