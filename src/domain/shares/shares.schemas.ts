import { z } from "@hono/zod-openapi";
import { isId } from "../../platform/ids.ts";

export const CreateShareInput = z
  .object({
    file_id: z.string().refine(isId, { message: "not a valid id" }).optional(),
    directory_id: z.string().refine(isId, { message: "not a valid id" }).optional(),
    expires_at: z.iso
      .datetime({ offset: true })
      .optional()
      .openapi({ description: "When the link stops working" }),
    password: z
      .string()
      .min(4)
      .max(256)
      .optional()
      .openapi({ description: "Asked of whoever opens the link" }),
    max_downloads: z.number().int().min(1).max(1_000_000).optional(),
    allow_upload: z
      .boolean()
      .optional()
      .openapi({ description: "Not supported yet: must be false or absent" }),
  })
  .refine((v) => (v.file_id === undefined) !== (v.directory_id === undefined), {
    message: "give exactly one of file_id and directory_id",
  })
  .openapi("CreateShareRequest");

export const ShareSchema = z
  .object({
    id: z.string(),
    file_id: z.string(),
    name: z.string(),
    type: z.enum(["file", "directory"]),
    created_by: z.string(),
    expires_at: z.string().nullable(),
    has_password: z.boolean(),
    max_downloads: z.number().nullable(),
    download_count: z.number(),
    allow_upload: z.boolean(),
    created_at: z.string(),
    last_accessed_at: z.string().nullable(),
  })
  .openapi("Share");

export const CreatedShareSchema = ShareSchema.extend({
  token: z.string().openapi({ description: "Shown once: only its hash is stored" }),
  url: z.string().openapi({ description: "The page for people: /s/<token>" }),
  download_url: z.string().openapi({ description: "/s/<token>/download (a folder: its zip)" }),
}).openapi("CreatedShare");

export const ShareListSchema = z.object({ shares: z.array(ShareSchema) });

export type ShareDto = z.output<typeof ShareSchema>;
