import { z } from "@hono/zod-openapi";
import { GrantInput, MAX_GRANTS } from "../access/grants.schemas.ts";
import { pageQuery } from "../page.schemas.ts";

const Id = z.string().min(1).max(64);

export const CreateWatchedFolderInput = z
  .object({
    name: z.string().min(1).max(255).optional().openapi({
      description: "Name of the directory it appears as in the tree; default: the host folder's name",
    }),
    path: z
      .string()
      .min(1)
      .max(4096)
      .openapi({ description: "Absolute host directory (resolved through symlinks)", example: "/srv/media" }),
    parent_id: Id.optional().openapi({ description: "Directory to mount it under; default: the top" }),
    grants: z.array(GrantInput).max(MAX_GRANTS).optional().openapi({
      description:
        "Who may see and use it (docs/access.md); absent: it inherits the grants of where it is mounted",
    }),
  })
  .openapi("CreateWatchedFolderRequest");

export const UpdateWatchedFolderInput = z
  .object({
    name: z.string().min(1).max(255).optional(),
    path: z
      .string()
      .min(1)
      .max(4096)
      .optional()
      .openapi({ description: "A new host directory; the index is rebuilt" }),
  })
  .strict()
  .openapi("UpdateWatchedFolderRequest");

export const ScanInput = z
  .object({
    full: z
      .union([z.boolean(), z.enum(["true", "false", "1", "0"]).transform((v) => v === "true" || v === "1")])
      .optional()
      .openapi({ description: "Stat every file, even in directories whose mtime is unchanged" }),
  })
  .openapi("ScanRequest");

export const ListFilesInput = pageQuery(1000);

export const WatchedFolderSchema = z
  .object({
    id: z.string(),
    name: z.string(),
    path: z.string().openapi({ description: "Real host path" }),
    directory_id: z.string().openapi({ description: "The directory mounting it in the tree" }),
    status: z.enum(["idle", "scanning", "watching", "polling", "offline", "error"]),
    status_message: z.string().optional(),
    files_seen: z.number().int().openapi({ description: "Files examined by the running or last scan" }),
    files_indexed: z.number().int().openapi({ description: "Files in the index" }),
    scan_errors: z.number().int(),
    scan_rate: z.number().openapi({ description: "Files per second of the running or last scan" }),
    last_scan_started_at: z.string().optional(),
    last_scan_finished_at: z.string().optional(),
    created_at: z.string(),
    updated_at: z.string(),
  })
  .openapi("WatchedFolder");

export type WatchedFolderDto = z.infer<typeof WatchedFolderSchema>;
