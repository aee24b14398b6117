import { z } from "@hono/zod-openapi";
import { FileSchema } from "../files/files.schemas.ts";

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
  })
  .openapi("MediaInfo");
