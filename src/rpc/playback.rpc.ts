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
  };
}
