import type { ServiceImpl } from "@connectrpc/connect";
import type { AppContext } from "../context.ts";
import type { PlaybackPositionService } from "../gen/attic/v1/playback_position_pb.ts";
import { actorOf } from "./call-context.ts";

/** PlaybackPositionService over the same playback service as /api/v1/playback. */
export function playbackRpc(ctx: AppContext): Partial<ServiceImpl<typeof PlaybackPositionService>> {
  const playback = () => ctx.services.playback;
  return {
    getPlaybackPosition: (req, call) => {
      const p = playback().get(actorOf(call), req.fileId);
      return {
        fileId: p.file_id,
        positionSeconds: p.position_seconds,
        durationSeconds: p.duration_seconds,
        lastUpdated: p.last_updated,
      };
    },
    savePlaybackPosition: (req, call) => {
      playback().save(actorOf(call), req.fileId, {
        position_seconds: req.positionSeconds,
        duration_seconds: req.durationSeconds,
      });
      return { success: true };
    },
    getPlaybackInfo: async (req, call) => {
      const input = {
        ...(req.codecs.length > 0 ? { codecs: req.codecs.join(",") } : {}),
        ...(req.audio !== undefined ? { audio: String(req.audio) } : {}),
      };
      const p = await ctx.services.streaming.info(actorOf(call), req.fileId, input);
      return {
        mode: p.mode,
        duration: p.duration ?? 0,
        container: p.container ?? "",
        video: p.video
          ? { codec: p.video.codec, width: p.video.width ?? 0, height: p.video.height ?? 0 }
          : undefined,
        audio: p.audio.map((a) => ({
          index: a.index,
          codec: a.codec,
          language: a.language ?? "",
          title: a.title ?? "",
          channels: a.channels ?? 0,
          default: a.default,
          selected: a.selected,
        })),
        subtitles: p.subtitles.map((x) => ({
          index: x.index,
          language: x.language ?? "",
          title: x.title ?? "",
          format: x.format,
          source: x.source,
          url: x.url,
        })),
        directUrl: p.direct_url ?? "",
        hlsUrl: p.hls_url ?? "",
        tags: p.tags
          ? {
              title: p.tags.title ?? "",
              artist: p.tags.artist ?? "",
              album: p.tags.album ?? "",
              albumArtist: p.tags.album_artist ?? "",
              track: p.tags.track ?? 0,
              disc: p.tags.disc ?? 0,
              year: p.tags.year ?? 0,
              genre: p.tags.genre ?? "",
              hasCover: p.tags.has_cover,
            }
          : undefined,
        reason: p.reason ?? "",
      };
    },
  };
}
