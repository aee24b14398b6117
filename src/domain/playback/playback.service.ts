import type { Db } from "../../db/client.ts";
import { AppError, notFound } from "../../errors.ts";
import { isId, nowIso } from "../../platform/ids.ts";
import { type Access, LEVEL } from "../access/access.ts";
import { type Actor, requirePermission } from "../actor.ts";
import { type FileDto, toFileDtos } from "../files/files.dto.ts";
import { parseInput } from "../parse-input.ts";
import { createPlaybackRepo, type FileRow, type PlaybackRow } from "./playback.repo.ts";
import { ContinueWatchingInput, type PlaybackPositionDto, SavePlaybackInput } from "./playback.schemas.ts";

/** Share of the duration after which an item counts as watched (Jellyfin's rule of thumb: the last 5%). */
export const WATCHED_FRACTION = 0.95;

/**
 * Where each user stopped in each media file, for resuming in another
 * session. Per user and organization; needs `file:read` on a live file of the
 * caller's organization (another organization's file is 404 like a missing one).
 */
export function createPlaybackService(deps: { db: Db; access: Access }) {
  const repo = createPlaybackRepo(deps.db);

  /** A live file of the actor's organization; saving or forgetting a position is a write (`file:write`). */
  const fileOf = (actor: Actor, fileId: string, permission = "file:read"): FileRow => {
    requirePermission(actor, permission);
    // docs/api.md: a missing file_id is invalid input (RPC's proto3 sends "" for it).
    if (!fileId) throw new AppError("VALIDATION", "file_id is required");
    const row = isId(fileId) ? repo.liveFile(actor.organizationId, fileId) : undefined;
    if (!row) throw notFound("file", "FILE_NOT_FOUND");
    // A position is the user's own: reading the file is enough to keep one.
    deps.access.check(actor, row, LEVEL.read);
    return row;
  };

  return {
    /** The saved position; 404 ERR_NOT_FOUND when none was saved. */
    get(actor: Actor, fileId: string): PlaybackPositionDto {
      const file = fileOf(actor, fileId);
      const row = repo.get(actor.organizationId, actor.userId, file.id);
      if (!row) throw notFound("playback position");
      return toDto(row);
    },

    /** Saves (overwrites) the position; the newest write wins. */
    save(actor: Actor, fileId: string, input: unknown): PlaybackPositionDto {
      const file = fileOf(actor, fileId, "file:write");
      if (file.type !== "file") throw new AppError("VALIDATION", "a directory has no playback position");
      const q = parseInput(SavePlaybackInput, input);
      const row: PlaybackRow = {
        user_id: actor.userId,
        file_id: file.id,
        organization_id: actor.organizationId,
        position_seconds: q.position_seconds,
        duration_seconds: q.duration_seconds,
        last_updated: nowIso(),
      };
      repo.upsert(row);
      return toDto(row);
    },

    /** Forgets the position (404 when none was saved). */
    remove(actor: Actor, fileId: string): void {
      const file = fileOf(actor, fileId, "file:write");
      if (!repo.remove(actor.organizationId, actor.userId, file.id)) throw notFound("playback position");
    },

    /** "Continue watching": the caller's started, unfinished items, newest first, with their files. */
    continueWatching(actor: Actor, input: unknown): { items: (PlaybackPositionDto & { file: FileDto })[] } {
      requirePermission(actor, "file:read");
      const q = parseInput(ContinueWatchingInput, input ?? {});
      const rows = repo.inProgress(actor.organizationId, actor.userId, deps.access.view(actor), q.limit);
      const fileDtos = toFileDtos(
        deps.db,
        rows.map((r) => r.file),
      );
      return { items: rows.map((r, i) => ({ ...toDto(r.position), file: fileDtos[i] as FileDto })) };
    },
  };
}

function toDto(row: PlaybackRow): PlaybackPositionDto {
  return {
    file_id: row.file_id,
    position_seconds: row.position_seconds,
    duration_seconds: row.duration_seconds,
    last_updated: row.last_updated,
    watched: row.duration_seconds > 0 && row.position_seconds >= row.duration_seconds * WATCHED_FRACTION,
  };
}

export type PlaybackService = ReturnType<typeof createPlaybackService>;
