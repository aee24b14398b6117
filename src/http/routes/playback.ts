import { createRoute, z } from "@hono/zod-openapi";
import type { AppContext } from "../../context.ts";
import { FileIdParam } from "../../domain/ids.schemas.ts";
import {
  ContinueWatchingInput,
  ContinueWatchingSchema,
  MediaInfoSchema,
  PlaybackPositionSchema,
  SavePlaybackInput,
} from "../../domain/playback/playback.schemas.ts";
import { THUMBNAIL_SIZES } from "../../domain/playback/thumbnails.service.ts";
import { actorOf, type Router } from "../env.ts";
import { errorResponses, type Guards, json, newRouter, SECURED, SuccessSchema } from "../router.ts";

const route = <T extends Parameters<typeof createRoute>[0]>(r: T) =>
  createRoute({ ...r, tags: ["Playback positions"], security: SECURED });

const list = route({
  method: "get",
  path: "/playback-positions",
  summary: "Continue watching: the caller's started, unfinished items (not in the last 5%), newest first",
  request: { query: ContinueWatchingInput },
  responses: {
    200: { description: "Items with their files", ...json(ContinueWatchingSchema) },
    ...errorResponses(400, 401, 403, 429),
  },
});
const get = (path: string) =>
  route({
    method: "get",
    path,
    summary: "The caller's saved position in a file (404 ERR_NOT_FOUND when none was saved)",
    request: { params: FileIdParam },
    responses: {
      200: { description: "The position", ...json(PlaybackPositionSchema) },
      ...errorResponses(401, 403, 404, 429),
    },
  });
const save = (path: string) =>
  route({
    method: "put",
    path,
    summary: "Save the caller's position in a file (the newest write wins)",
    request: { params: FileIdParam, body: { ...json(SavePlaybackInput), required: true } },
    responses: {
      200: { description: "The saved position", ...json(PlaybackPositionSchema) },
      ...errorResponses(400, 401, 403, 404, 429),
    },
  });
const remove = route({
  method: "delete",
  path: "/playback-positions/{id}",
  summary: "Forget the caller's position in a file",
  request: { params: FileIdParam },
  responses: {
    200: { description: "Forgotten", ...json(SuccessSchema) },
    ...errorResponses(401, 403, 404, 429),
  },
});

const mediaInfo = createRoute({
  method: "get",
  path: "/files/{id}/media-info",
  tags: ["Files"],
  security: SECURED,
  summary: "Duration, container, codecs and resolution of an audio/video file (ffprobe)",
  description:
    "400 for non-media files; 503 ERR_UNAVAILABLE when ffmpeg is not installed (see /health details.media).",
  request: { params: FileIdParam },
  responses: {
    200: { description: "What ffprobe found", ...json(MediaInfoSchema) },
    ...errorResponses(400, 401, 403, 404, 429, 503),
  },
});

const ThumbnailQuery = z.object({
  size: z.coerce
    .number()
    .int()
    .refine((n) => (THUMBNAIL_SIZES as readonly number[]).includes(n), {
      message: `size must be one of ${THUMBNAIL_SIZES.join(", ")}`,
    })
    .default(256),
});
const thumbnail = createRoute({
  method: "get",
  path: "/files/{id}/thumbnail",
  tags: ["Files"],
  security: SECURED,
  summary: "A WebP thumbnail of an image (never SVG) or a poster frame of a video, fitting in size×size",
  description:
    "Made on first request (at most two at once) and cached on disk; ETag and 304. 400 for other types and unreadable images; 413 for images over 100 megapixels or taking longer than media.thumbnail_timeout_seconds to decode; 503 when sharp or ffmpeg is missing.",
  request: { params: FileIdParam, query: ThumbnailQuery },
  responses: {
    200: {
      description: "image/webp",
      content: { "image/webp": { schema: z.string().openapi({ format: "binary" }) } },
    },
    304: { description: "Not modified" },
    ...errorResponses(400, 401, 403, 404, 413, 429, 503),
  },
});

/** Playback positions (/playback-positions, /files/:id/playback-position) and media info. */
export function playbackRoutes(ctx: AppContext, guards: Guards): Router {
  const r = newRouter();
  const playback = ctx.services.playback;
  for (const p of [
    "/playback-positions",
    "/playback-positions/*",
    "/files/:id/playback-position",
    "/files/:id/media-info",
  ]) {
    r.use(p, guards.auth());
  }
  // A photo grid asks for hundreds of thumbnails a minute: the media budget.
  r.use("/files/:id/thumbnail", guards.media());
  r.openapi(list, (c) =>
    c.json(
      playback.continueWatching(actorOf(c), c.req.valid("query")) as z.infer<typeof ContinueWatchingSchema>,
      200,
    ),
  );
  r.openapi(get("/playback-positions/{id}"), (c) =>
    c.json(playback.get(actorOf(c), c.req.valid("param").id), 200),
  );
  r.openapi(get("/files/{id}/playback-position"), (c) =>
    c.json(playback.get(actorOf(c), c.req.valid("param").id), 200),
  );
  r.openapi(save("/playback-positions/{id}"), (c) =>
    c.json(playback.save(actorOf(c), c.req.valid("param").id, c.req.valid("json")), 200),
  );
  r.openapi(save("/files/{id}/playback-position"), (c) =>
    c.json(playback.save(actorOf(c), c.req.valid("param").id, c.req.valid("json")), 200),
  );
  r.openapi(remove, (c) => {
    playback.remove(actorOf(c), c.req.valid("param").id);
    return c.json({ success: true }, 200);
  });
  r.openapi(mediaInfo, async (c) =>
    c.json(await ctx.services.media.info(actorOf(c), c.req.valid("param").id), 200),
  );
  r.openapi(thumbnail, async (c) => {
    const t = await ctx.services.thumbnails.get(
      actorOf(c),
      c.req.valid("param").id,
      c.req.valid("query").size,
    );
    c.header("ETag", t.etag);
    c.header("Cache-Control", "private, max-age=86400");
    if (c.req.header("if-none-match") === t.etag) return c.body(null, 304);
    return c.body(new Uint8Array(t.bytes), 200, { "Content-Type": "image/webp" });
  });
  return r;
}
