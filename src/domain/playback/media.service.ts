import { AppError } from "../../errors.ts";
import type { MediaInfo, MediaTools } from "../../platform/ffmpeg.ts";
import type { Actor } from "../actor.ts";
import type { OpenedContent } from "../files/content.ts";

const CACHE_MAX = 2000;

/**
 * Duration, codecs and resolution of audio/video files, read by ffprobe from
 * the stored blob or the host file. Results are cached per content version
 * (ETag), so players asking repeatedly cost one probe. Without ffmpeg on the
 * machine: 503 ERR_UNAVAILABLE, and everything else keeps working.
 */
export function createMediaService(deps: {
  openMedia: (actor: Actor, id: string) => Promise<OpenedContent>;
  tools: MediaTools;
}) {
  const cache = new Map<string, MediaInfo>();
  return {
    async info(actor: Actor, id: string): Promise<MediaInfo> {
      const content = await deps.openMedia(actor, id);
      if (!deps.tools.available) throw new AppError("UNAVAILABLE", "media probing is off (ffmpeg missing)");
      const key = `${content.row.id}:${content.etag}`;
      const hit = cache.get(key);
      if (hit) return hit;
      const info = await deps.tools.probe(content.path);
      if (!info) throw new AppError("VALIDATION", "the file could not be read as media");
      if (cache.size >= CACHE_MAX) cache.delete(cache.keys().next().value as string);
      cache.set(key, info);
      return info;
    },
  };
}

export type MediaService = ReturnType<typeof createMediaService>;
