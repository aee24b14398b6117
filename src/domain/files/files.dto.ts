import type { z } from "@hono/zod-openapi";
import type { Db } from "../../db/client.ts";
import { type TagDto, tagsForFiles } from "../tags/tags.repo.ts";
import type { FileRow } from "./files.repo.ts";
import type { DirectorySchema, FileSchema } from "./files.schemas.ts";

/** A file or directory as clients see it: the shape of FileSchema, the one source of it. */
export type FileDto = z.output<typeof FileSchema>;

/** A directory with the number of its live immediate children. */
export type DirectoryDto = z.output<typeof DirectorySchema>;

/** One directory of a tree and its subdirectories. */
export interface DirectoryNodeDto {
  directory: DirectoryDto;
  children: DirectoryNodeDto[];
}

/** Shapes one row; `tags` from tagsForFiles. Internal columns (owner, blob, host path) never leave. */
export function toFileDto(row: FileRow, tags: TagDto[] = []): FileDto {
  return {
    id: row.id,
    name: row.name,
    path: row.path,
    ...(row.parent_id ? { parent_id: row.parent_id } : {}),
    // The table's CHECK constraint allows exactly these three.
    type: row.type as FileDto["type"],
    size: row.size,
    mime_type: row.mime_type,
    hash: row.hash,
    created_at: row.created_at,
    updated_at: row.updated_at,
    accessed_at: row.accessed_at,
    permissions: "",
    tags,
    is_deleted: row.is_deleted,
    ...(row.deleted_at ? { deleted_at: row.deleted_at } : {}),
    read_only: row.watched_folder_id !== null,
    is_offline: row.is_offline,
  };
}

/** Shapes many rows with their tags in one query. */
export function toFileDtos(db: Db, rows: readonly FileRow[]): FileDto[] {
  const tags = tagsForFiles(
    db,
    rows.map((r) => r.id),
  );
  return rows.map((r) => toFileDto(r, tags.get(r.id)));
}

/** Shapes one row with its tags. */
export function toTaggedFileDto(db: Db, row: FileRow): FileDto {
  return toFileDtos(db, [row])[0] as FileDto;
}
