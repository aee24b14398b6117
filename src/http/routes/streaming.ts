import { open } from "node:fs/promises";
import { Readable } from "node:stream";
import { createRoute, z } from "@hono/zod-openapi";
import type { Context } from "hono";
import type { AppContext } from "../../context.ts";
import { FileIdParam } from "../../domain/ids.schemas.ts";
import {
  PlaybackInfoSchema,
  PlaybackQuery,
  SegmentParam,
  SubtitleParam,
} from "../../domain/playback/playback.schemas.ts";
import { AppError } from "../../errors.ts";
import { actorOf, type Env, type Router } from "../env.ts";
import { errorResponses, type Guards, json, newRouter, SECURED } from "../router.ts";
import { streamTokenAuth } from "./stream-token.ts";

const TOKEN_NOTE =
  "Accepts a bearer token, an API key, or `?st=` (a stream token of this file). Every URL it hands on carries a stream token.";

const route = <T extends Parameters<typeof createRoute>[0]>(r: T) =>
  createRoute({ ...r, tags: ["Playback"], security: SECURED });

const text = (type: string, description: string) => ({
  200: { description, content: { [type]: { schema: z.string() } } },
});

const info = route({
  method: "get",
  path: "/files/{id}/playback-info",
  summary:
    "How this audio/video file plays on the client: direct, remux or transcode, its tracks and subtitles",
  description: `${TOKEN_NOTE} Without ffmpeg on the server: mode direct, hls_url null, and a reason.`,
  request: { params: FileIdParam, query: PlaybackQuery },
  responses: {
    200: { description: "The decision and the URLs to play it", ...json(PlaybackInfoSchema) },
    ...errorResponses(400, 401, 403, 404, 429, 503),
  },
});

const master = route({
  method: "get",
  path: "/files/{id}/hls/master.m3u8",
  summary: "HLS master playlist (H.264/AAC in MPEG-TS, or the video copied when the client plays it)",
  description: `${TOKEN_NOTE} \`audio\` picks the audio stream; \`codecs\` as in playback-info.`,
  request: { params: FileIdParam, query: PlaybackQuery },
  responses: {
    ...text("application/vnd.apple.mpegurl", "Master playlist"),
    ...errorResponses(400, 401, 403, 404, 429, 503),
  },
});

/** Below the master playlist, the stream token is a path segment: segment URLs are relative and short. */
const TokenParam = z.object({ st: z.string().min(1).max(4096).openapi({ description: "Stream token" }) });

const variant = route({
  method: "get",
  path: "/files/{id}/hls/t/{st}/index.m3u8",
  summary: "HLS media playlist: every segment of the whole file (VOD)",
  description:
    "The path carries the stream token (from the master playlist); segment URLs are relative to it.",
  request: { params: FileIdParam.merge(TokenParam), query: PlaybackQuery.omit({ st: true }) },
  responses: {
    ...text("application/vnd.apple.mpegurl", "Media playlist"),
    ...errorResponses(400, 401, 403, 404, 429, 503),
  },
});

const segment = route({
  method: "get",
  path: "/files/{id}/hls/t/{st}/{segment}",
  summary: "One HLS segment (MPEG-TS); a segment far from the running conversion restarts it there (seeking)",
  description:
    "The path carries the stream token. 503 when every conversion slot is busy (media.max_transcodes) or ffmpeg fails.",
  request: {
    params: FileIdParam.merge(TokenParam).merge(SegmentParam),
    query: PlaybackQuery.omit({ st: true }),
  },
  responses: { ...text("video/mp2t", "Segment"), ...errorResponses(400, 401, 403, 404, 429, 503) },
});

const subtitle = route({
  method: "get",
  path: "/files/{id}/subtitles/{track}",
  summary: "A subtitle track as WebVTT: an embedded text stream or a sidecar file (index from playback-info)",
  description: TOKEN_NOTE,
  request: {
    params: FileIdParam.merge(SubtitleParam),
    query: z.object({ st: z.string().max(4096).optional() }),
  },
  responses: { ...text("text/vtt", "WebVTT"), ...errorResponses(400, 401, 403, 404, 413, 429, 503) },
});

/** Playback of any audio/video file: playback-info, HLS, subtitles. */
export function streamingRoutes(ctx: AppContext, guards: Guards): Router {
  const r = newRouter();
  const streaming = ctx.services.streaming;
  const byToken = streamTokenAuth(ctx, guards);

  const playlist = (c: Context<Env>, body: string) =>
    c.body(body, 200, {
      "Content-Type": "application/vnd.apple.mpegurl",
      // It names a stream token: never kept by a shared cache.
      "Cache-Control": "private, no-store",
    });

  r.openapi({ ...info, middleware: [byToken] }, async (c) => {
    const { id } = c.req.valid("param");
    return c.json(await streaming.info(actorOf(c), id, c.req.query(), c.req.query("st")), 200);
  });
  r.openapi({ ...master, middleware: [byToken] }, async (c) => {
    const { id } = c.req.valid("param");
    return playlist(c, await streaming.master(actorOf(c), id, c.req.query(), c.req.query("st"))) as never;
  });
  r.openapi({ ...variant, middleware: [byToken] }, async (c) => {
    const { id } = c.req.valid("param");
    return playlist(c, await streaming.variant(actorOf(c), id, c.req.query())) as never;
  });
  r.openapi({ ...segment, middleware: [byToken] }, async (c) => {
    const { id, segment: name, st } = c.req.valid("param");
    const path = await streaming.segment(actorOf(c), id, name, c.req.query(), st);
    return sendSegment(c, path) as never;
  });
  r.openapi({ ...subtitle, middleware: [byToken] }, async (c) => {
    const { id, track } = c.req.valid("param");
    const vtt = await streaming.subtitle(actorOf(c), id, track);
    return c.body(vtt, 200, {
      "Content-Type": "text/vtt; charset=utf-8",
      "Cache-Control": "private, max-age=300",
    }) as never;
  });
  return r;
}

/** A finished segment file, streamed (it may be several MiB). */
async function sendSegment(c: Context<Env>, path: string): Promise<Response> {
  const fh = await open(path, "r").catch(() => {
    // Trimmed between being found and being opened: the player asks again and it is made anew.
    throw new AppError("UNAVAILABLE", "the segment was just removed; ask again");
  });
  const { size } = await fh.stat();
  const body = Readable.toWeb(fh.createReadStream()) as ReadableStream;
  return c.body(body, 200, {
    "Content-Type": "video/mp2t",
    "Content-Length": String(size),
    "Cache-Control": "private, max-age=3600",
  });
}
