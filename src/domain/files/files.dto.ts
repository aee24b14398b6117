import type { Db } from "../../db/client.ts";
import { type TagDto, tagsForFiles } from "../tags/tags.repo.ts";
import type { FileRow } from "./files.repo.ts";

/** A file or directory as clients see it (interface.md "File"). */
export interface FileDto {
  id: string;
  name: string;
  path: string;
  parent_id?: string;
  type: "file" | "directory" | "symlink";
  size: number;
  mime_type: string;
  hash: string;
  created_at: string;
  updated_at: string;
  accessed_at: string;
  /** Reserved by interface.md; always "". */
  permissions: string;
  tags: TagDto[];
  is_deleted: boolean;
  deleted_at?: string;
  /** In a watched folder: the tree may not change it (403 ERR_READ_ONLY). */
  read_only: boolean;
  /** Its watched folder's drive is absent. */
  is_offline: boolean;
}

/** A directory with the number of its live immediate children. */
export interface DirectoryDto {
  file: FileDto;
  child_count: number;
}

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
