import { z } from "@hono/zod-openapi";
import { isId } from "../platform/ids.ts";

/**
 * An id in a URL path (`/files/{id}`, `/groups/{id}/members/{userId}`): a
 * malformed one is 400 ERR_VALIDATION before any lookup, never a 404, as RPC
 * answers invalid_argument (src/rpc/validate-ids.ts).
 */
export const pathId = (name = "id", description?: string) =>
  z
    .string()
    .refine(isId, { message: "not a valid id" })
    .openapi({
      param: { name, in: "path" },
      type: "string",
      format: "uuid",
      ...(description ? { description } : {}),
    });

/**
 * An id in a request body (`user_id` of a member or a role assignment): a
 * malformed one is 400, like a path id and like RPC's `*_id` fields.
 */
export const BodyId = z.string().refine(isId, { message: "not a valid id" }).openapi({ format: "uuid" });

/** `{id}` path parameters. */
export const IdParam = z.object({ id: pathId() });

/** `{id}` of a file's media routes (playback, streams, thumbnails), described as such. */
export const FileIdParam = z.object({ id: pathId("id", "File id") });
