import { z } from "@hono/zod-openapi";
import { FileSchema } from "../files/files.schemas.ts";
import { BROWSER_CODECS, KNOWN_CODECS } from "./stream-plan.ts";

/** Seconds: finite, not negative, at most ~31 years (a bound that keeps arithmetic exact). */
const Seconds = z.number().min(0).max(1e9);

export const SavePlaybackInput = z
  .object({
    position_seconds: Seconds.openapi({ example: 754.2 }),
    duration_seconds: Seconds.default(0).openapi({ description: "0 when unknown", example: 2710 }),
  })
  .refine((v) => v.duration_seconds === 0 || v.position_seconds <= v.duration_seconds, {
    message: "position_seconds must not exceed duration_seconds",
    path: ["position_seconds"],
  })
  .openapi("SavePlaybackPositionRequest");

export const ContinueWatchingInput = z.object({
  limit: z.coerce.number().int().min(1).max(100).default(20),
});

export const PlaybackPositionSchema = z
  .object({
    file_id: z.string(),
    position_seconds: z.number(),
    duration_seconds: z.number(),
    last_updated: z.string(),
    watched: z.boolean().openapi({ description: "Within 5% of the end (or past it)" }),
  })
  .openapi("PlaybackPosition");

export const ContinueWatchingSchema = z
  .object({
    items: z.array(PlaybackPositionSchema.extend({ file: FileSchema })),
  })
  .openapi("ContinueWatching");

export type PlaybackPositionDto = z.infer<typeof PlaybackPositionSchema>;

export const MediaInfoSchema = z
  .object({
    duration_seconds: z.number().optional(),
    format: z.string().optional().openapi({ example: "mov,mp4,m4a,3gp,3g2,mj2" }),
    video: z
      .object({ codec: z.string(), width: z.number().int().optional(), height: z.number().int().optional() })
      .optional(),
    audio: z.object({ codec: z.string(), channels: z.number().int().optional() }).optional(),
    streams: z
      .array(
        z.object({
          index: z.number().int(),
          type: z.enum(["video", "audio", "subtitle", "other"]),
          codec: z.string(),
          language: z.string().optional(),
          title: z.string().optional(),
          channels: z.number().int().optional(),
          width: z.number().int().optional(),
          height: z.number().int().optional(),
          rotation: z.number().int().optional().openapi({
            description: "Degrees a player turns the picture (90, 180, 270): a phone's portrait video",
          }),
          default: z.boolean(),
          picture: z.boolean().openapi({ description: "Cover art, not a video track" }),
        }),
      )
      .openapi({ description: "Every stream, in file order" }),
  })
  .openapi("MediaInfo");

const CodecList = z
  .string()
  .max(500)
  .transform((s, ctx) => {
    const list = [
      ...new Set(
        s
          .split(",")
          .map((c) => c.trim().toLowerCase())
          .filter(Boolean),
      ),
    ].sort();
    const unknown = list.filter((c) => !(KNOWN_CODECS as readonly string[]).includes(c));
    if (unknown.length > 0) {
      ctx.addIssue({ code: "custom", message: `unknown codecs: ${unknown.join(", ")}` });
      return z.NEVER;
    }
    return list;
  })
  .openapi({
    type: "string",
    description: `Comma-separated codecs the client decodes (default: ${BROWSER_CODECS.join(",")}). Known: ${KNOWN_CODECS.join(", ")}`,
    example: "h264,hevc,aac,ac3",
  });

/** What a playback request says about the client: its codecs and the audio stream it wants. */
export const PlaybackQuery = z.object({
  codecs: CodecList.optional(),
  audio: z.coerce
    .number()
    .int()
    .min(0)
    .max(10_000)
    .optional()
    .openapi({ description: "Audio stream to play (an `index` of `audio`); default: the file's default" }),
  st: z
    .string()
    .max(4096)
    .optional()
    .openapi({ description: "Stream token (POST /files/{id}/stream-token)" }),
});

export const SegmentParam = z.object({
  segment: z
    .string()
    .regex(/^seg-\d{1,6}\.ts$/, "a segment name is seg-<n>.ts")
    .openapi({ example: "seg-0.ts" }),
});

export const SubtitleParam = z.object({
  track: z
    .string()
    .regex(/^\d{1,5}\.vtt$/, "a subtitle is <index>.vtt")
    .openapi({ example: "3.vtt" }),
});

export const PlaybackInfoSchema = z
  .object({
    mode: z.enum(["direct", "remux", "transcode"]).openapi({
      description:
        "direct: the file as it is (direct_url, byte ranges); remux: video copied, into HLS; transcode: video encoded to H.264 and audio to AAC, into HLS",
    }),
    duration: z.number().nullable().openapi({ description: "Seconds; null when unknown" }),
    container: z.string().nullable().openapi({ example: "matroska,webm" }),
    video: z
      .object({ codec: z.string(), width: z.number().int().nullable(), height: z.number().int().nullable() })
      .nullable(),
    audio: z.array(
      z.object({
        index: z.number().int(),
        codec: z.string(),
        language: z.string().optional(),
        title: z.string().optional(),
        channels: z.number().int().nullable(),
        default: z.boolean(),
        selected: z.boolean(),
      }),
    ),
    subtitles: z.array(
      z.object({
        index: z.number().int(),
        language: z.string().optional(),
        title: z.string().optional(),
        format: z.string().openapi({ example: "subrip" }),
        source: z.enum(["embedded", "sidecar"]),
        url: z.string(),
      }),
    ),
    direct_url: z
      .string()
      .optional()
      .openapi({ description: "In direct mode: the file, with a stream token" }),
    hls_url: z
      .string()
      .nullable()
      .openapi({ description: "HLS master playlist with a stream token (any mode); null without ffmpeg" }),
    tags: z
      .object({
        title: z.string().optional(),
        artist: z.string().optional(),
        album: z.string().optional(),
        album_artist: z.string().optional(),
        track: z.number().int().optional(),
        disc: z.number().int().optional(),
        year: z.number().int().optional(),
        genre: z.string().optional(),
        has_cover: z.boolean(),
      })
      .optional()
      .openapi({ description: "Music files: their tags (cover art: GET /files/{id}/thumbnail)" }),
    reason: z
      .string()
      .optional()
      .openapi({ description: "Why the file may not play (ffmpeg missing, not media it can read)" }),
  })
  .openapi("PlaybackInfo");

export type PlaybackInfoDto = z.infer<typeof PlaybackInfoSchema>;
export type PlaybackQueryInput = z.infer<typeof PlaybackQuery>;
