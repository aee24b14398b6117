import type { ServiceImpl } from "@connectrpc/connect";
import type { AppContext } from "../context.ts";
import { AppError } from "../errors.ts";
import type { PlaybackPositionService } from "../gen/attic/v1/playback_position_pb.ts";
import { actorOf } from "./call-context.ts";

/** interface.md: a missing file_id is INVALID_ARGUMENT over RPC (proto3 sends "" for it). */
function requireFileId(fileId: string): string {
  if (!fileId) throw new AppError("VALIDATION", "file_id is required");
  return fileId;
}

/** PlaybackPositionService over the same playback service as /api/v1/playback. */
export function playbackRpc(ctx: AppContext): Partial<ServiceImpl<typeof PlaybackPositionService>> {
  const playback = () => ctx.services.playback;
  return {
    getPlaybackPosition: (req, call) => {
      const p = playback().get(actorOf(call), requireFileId(req.fileId));
      return {
        fileId: p.file_id,
        positionSeconds: p.position_seconds,
        durationSeconds: p.duration_seconds,
        lastUpdated: p.last_updated,
      };
    },
    savePlaybackPosition: (req, call) => {
      playback().save(actorOf(call), requireFileId(req.fileId), {
        position_seconds: req.positionSeconds,
        duration_seconds: req.durationSeconds,
      });
      return { success: true };
    },
  };
}
