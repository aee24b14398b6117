import { and, asc, desc, eq, gt, isNull, sql } from "drizzle-orm";
import type { Db } from "../../db/client.ts";
import { files, playbackPositions } from "../../db/schema.ts";
import type { AccessView } from "../access/access.ts";
import { readableBy } from "../files/files.repo.ts";

export type PlaybackRow = typeof playbackPositions.$inferSelect;
export type FileRow = typeof files.$inferSelect;

/** Playback positions, always by (organization, user): one user's positions are theirs alone. */
export function createPlaybackRepo(db: Db) {
  const mine = (orgId: string, userId: string, fileId: string) =>
    and(
      eq(playbackPositions.organization_id, orgId),
      eq(playbackPositions.user_id, userId),
      eq(playbackPositions.file_id, fileId),
    );
  return {
    /** A live file of the organization. */
    liveFile: (orgId: string, id: string) =>
      db
        .select()
        .from(files)
        .where(and(eq(files.organization_id, orgId), eq(files.id, id), eq(files.is_deleted, false)))
        .get(),
    /** Live files next to `row` whose names start with `prefix` (sidecar subtitles), by name. */
    siblingsStartingWith: (row: FileRow, prefix: string) =>
      db
        .select()
        .from(files)
        .where(
          and(
            eq(files.organization_id, row.organization_id),
            row.parent_id === null ? isNull(files.parent_id) : eq(files.parent_id, row.parent_id),
            eq(files.is_deleted, false),
            eq(files.type, "file"),
            sql`substr(${files.name}, 1, ${[...prefix].length}) = ${prefix}`,
          ),
        )
        .orderBy(asc(files.name))
        .limit(50)
        .all(),
    get: (orgId: string, userId: string, fileId: string) =>
      db
        .select()
        .from(playbackPositions)
        .where(mine(orgId, userId, fileId))
        .get(),
    /** Inserts or overwrites: the newest write wins. */
    upsert: (row: PlaybackRow) =>
      db
        .insert(playbackPositions)
        .values(row)
        .onConflictDoUpdate({
          target: [playbackPositions.user_id, playbackPositions.file_id],
          set: {
            position_seconds: row.position_seconds,
            duration_seconds: row.duration_seconds,
            last_updated: row.last_updated,
          },
        })
        .run(),
    remove: (orgId: string, userId: string, fileId: string) =>
      db
        .delete(playbackPositions)
        .where(mine(orgId, userId, fileId))
        .run().changes > 0,
    /**
     * Started, unfinished positions on live files, newest first: position > 0
     * and, when the duration is known, before the last 5%.
     */
    inProgress: (orgId: string, userId: string, viewer: AccessView, limit: number) =>
      db
        .select({ position: playbackPositions, file: files })
        .from(playbackPositions)
        .innerJoin(files, eq(files.id, playbackPositions.file_id))
        .where(
          and(
            eq(playbackPositions.organization_id, orgId),
            eq(playbackPositions.user_id, userId),
            eq(files.organization_id, orgId),
            eq(files.is_deleted, false),
            readableBy(viewer),
            gt(playbackPositions.position_seconds, 0),
            sql`(${playbackPositions.duration_seconds} = 0 or
                 ${playbackPositions.position_seconds} < ${playbackPositions.duration_seconds} * 0.95)`,
          ),
        )
        .orderBy(desc(playbackPositions.last_updated))
        .limit(limit)
        .all(),
  };
}

export type PlaybackRepo = ReturnType<typeof createPlaybackRepo>;
