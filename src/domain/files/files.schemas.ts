import { z } from "@hono/zod-openapi";
import { AppError } from "../../errors.ts";
import { isId } from "../../platform/ids.ts";
import { pageQuery } from "../page.schemas.ts";

/** A parent id: an id, or null / "" / absent for the top of the tree. Malformed → 400. */
export const parentRef = z
  .union([z.string().max(64), z.null()])
  .optional()
  .transform((v, ctx) => {
    if (v === undefined) return undefined;
    if (v === null || v === "") return null;
    if (!isId(v)) {
      ctx.addIssue({ code: "custom", message: "must be a file id" });
      return z.NEVER;
    }
    return v;
  })
  .openapi({ type: "string", description: "Directory id; null, empty or absent = top level" });

const flag = z
  .union([z.boolean(), z.enum(["true", "false", "1", "0"]).transform((v) => v === "true" || v === "1")])
  .default(false);

/** A page of a folder, the trash or a directory's children: at most 1000 entries. */
export const PageInput = pageQuery(1000);
export const ListFilesInput = PageInput.extend({ parent_id: parentRef }).openapi("ListFilesQuery");
export const TreeInput = z.object({
  depth: z.coerce.number().int().min(0).max(1000).default(0).openapi({ description: "0 = unlimited" }),
});
export const RecursiveInput = z.object({ recursive: flag });

export const UpdateFileInput = z
  .object({ name: z.string().max(1024).optional(), parent_id: parentRef })
  .openapi("UpdateFileRequest");

export const MoveFileInput = z
  .object({
    new_parent_id: parentRef,
    parent_id: parentRef.openapi({ description: "Alias of new_parent_id" }),
  })
  .openapi("MoveFileRequest");

/**
 * The destination of a move: `new_parent_id` (or its alias `parent_id`);
 * null or "" is the top level. Neither given is 400, so an empty body never
 * moves anything to the top by accident.
 */
export function moveTarget(q: { new_parent_id?: string | null; parent_id?: string | null }): string | null {
  const target = q.new_parent_id !== undefined ? q.new_parent_id : q.parent_id;
  if (target === undefined) {
    throw new AppError("VALIDATION", 'new_parent_id is required (null or "" for the top level)');
  }
  return target;
}

export const CopyFileInput = z
  .object({ destination_parent_id: parentRef, new_name: z.string().max(1024).optional() })
  .openapi("CopyFileRequest");

export const CreateDirectoryInput = z
  .object({ name: z.string().max(1024), parent_id: parentRef })
  .openapi("CreateDirectoryRequest");

export const TagSchema = z
  .object({ id: z.string(), name: z.string(), color: z.string(), created_at: z.string() })
  .openapi("Tag");

export const FileSchema = z
  .object({
    id: z.string(),
    name: z.string(),
    path: z.string().openapi({ example: "/Photos/2024/beach.jpg" }),
    parent_id: z.string().optional().openapi({ description: "Absent at the top level" }),
    type: z.enum(["file", "directory", "symlink"]),
    size: z.number().int(),
    mime_type: z.string(),
    hash: z.string().openapi({ description: "Lowercase hex SHA-256 of the content" }),
    created_at: z.string(),
    updated_at: z.string(),
    accessed_at: z.string(),
    permissions: z.string().openapi({ description: "Reserved; always empty" }),
    tags: z.array(TagSchema),
    is_deleted: z.boolean(),
    deleted_at: z.string().optional(),
    read_only: z.boolean().openapi({
      description:
        "In a watched folder: mirrors the host, so upload, rename, move, tag and delete answer 403",
    }),
    is_offline: z.boolean().openapi({
      description:
        "Its watched folder's drive is absent: listed, but its content cannot be read until it returns",
    }),
  })
  .openapi("File");

export const FileListSchema = z
  .object({ files: z.array(FileSchema), total: z.number().int() })
  .openapi("FileList");

export const DirectorySchema = z
  .object({ file: FileSchema, child_count: z.number().int() })
  .openapi("Directory");

export const DirectoryListSchema = z
  .object({ directories: z.array(DirectorySchema), total: z.number().int() })
  .openapi("DirectoryList");

export const FileContentSchema = z
  .object({ content: z.string(), mime_type: z.string(), encoding: z.literal("utf-8") })
  .openapi("FileContent");

/** POST /files/zip: items of one folder, zipped with their subtrees. */
export const ZipSelectionInput = z
  .object({
    ids: z
      .array(z.string().refine(isId, { message: "not a valid id" }))
      .min(1)
      .max(1000),
  })
  .openapi("ZipSelectionRequest");
