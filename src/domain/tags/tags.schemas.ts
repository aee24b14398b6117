import { z } from "@hono/zod-openapi";
import { isId } from "../../platform/ids.ts";
import { TagSchema } from "../files/files.schemas.ts";

/** Colors are `#rrggbb`; stored lower case. */
const color = z
  .string()
  .regex(/^#[0-9a-fA-F]{6}$/, "color must be a hex color #rrggbb")
  .transform((c) => c.toLowerCase())
  .openapi({ example: "#3366ff" });

// Names: trimmed, 1-64 characters, no control characters.
const name = z
  .string()
  .trim()
  .min(1)
  .max(64)
  // biome-ignore lint/suspicious/noControlCharactersInRegex: refusing control characters is the point
  .refine((n) => !/[\u0000-\u001f\u007f]/.test(n), { message: "name must not hold control characters" })
  .openapi({ example: "Holiday" });

export const DEFAULT_TAG_COLOR = "#808080";

export const CreateTagInput = z.object({ name, color: color.optional() }).openapi("CreateTagRequest");

export const UpdateTagInput = z
  .object({ name: name.optional(), color: color.optional() })
  .refine((v) => v.name !== undefined || v.color !== undefined, { message: "nothing to update" })
  .openapi("UpdateTagRequest");

const tagId = z.string().refine(isId, { message: "invalid tag id" });

/** Attach one tag (`tag_id`) or several (`tag_ids`), or both. */
export const AttachTagsInput = z
  .object({ tag_id: tagId.optional(), tag_ids: z.array(tagId).max(100).optional() })
  .refine((v) => v.tag_id !== undefined || (v.tag_ids?.length ?? 0) > 0, {
    message: "tag_id or tag_ids is required",
  })
  .openapi("AttachTagsRequest");

/** The Tag component is declared once, with the File record that embeds it. */
export { TagSchema };

/** A file's tags, as attaching and listing them answer. */
export const FileTagsSchema = z.object({ tags: z.array(TagSchema) }).openapi("FileTags");

export const TagListSchema = z
  .object({ tags: z.array(TagSchema), total: z.number().int() })
  .openapi("TagList");
