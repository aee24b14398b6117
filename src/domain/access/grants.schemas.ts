import { z } from "@hono/zod-openapi";
import { isId } from "../../platform/ids.ts";
import { parentRef } from "../files/files.schemas.ts";
import { LEVEL_NAMES } from "./access.ts";

/** Most grants one folder may carry: a household's users and groups, with room to spare. */
export const MAX_GRANTS = 200;

const levelName = z.enum(["read", "write", "manage"]).openapi({
  description:
    "read: list, search, preview, stream, download; write: also upload, rename, move, tag, trash; manage: also change grants, restore and purge from the trash",
});

export const GrantInput = z
  .object({
    subject_type: z.enum(["user", "group", "everyone"]),
    subject_id: z
      .string()
      .max(64)
      .optional()
      .refine((v) => v === undefined || v === "" || isId(v), { message: "must be a user or group id" })
      .openapi({ description: "The user's or group's id; absent for everyone" }),
    level: levelName,
  })
  .openapi("GrantInput");

export const SetGrantsInput = z
  .object({
    directory_id: parentRef.openapi({
      type: "string",
      description: "The folder; null, empty or absent = the top of the tree",
    }),
    grants: z.array(GrantInput).max(MAX_GRANTS),
  })
  .openapi("SetGrantsRequest");

export const GrantsQuery = z.object({ directory_id: parentRef }).openapi("GrantsQuery");

export const GrantSchema = z
  .object({
    subject_type: z.enum(["user", "group", "everyone"]),
    subject_id: z.string(),
    subject_name: z.string(),
    level: levelName,
  })
  .openapi("Grant");

export const GrantsSchema = z
  .object({
    directory_id: z.string().nullable().openapi({ description: "The folder asked about; null = the top" }),
    own: z.boolean().openapi({ description: "Whether this folder carries its own list (else it inherits)" }),
    governed_by: z.string().nullable().openapi({
      description: "The folder whose list applies here (itself when own); null = the top's list",
    }),
    personal: z
      .boolean()
      .openapi({ description: "Inside someone's personal folder (its owner always manages it)" }),
    owner_id: z.string().nullable().openapi({ description: "The personal folder's owner, when personal" }),
    admins_manage: z
      .boolean()
      .openapi({ description: "Organization admins manage it (true outside personal folders)" }),
    grants: z.array(GrantSchema),
    your_level: z.enum(LEVEL_NAMES),
  })
  .openapi("Grants");

export const SubjectSchema = z
  .object({
    subject_type: z.enum(["user", "group", "everyone"]),
    subject_id: z.string(),
    subject_name: z.string(),
  })
  .openapi("GrantSubject");

export const SubjectListSchema = z.object({ subjects: z.array(SubjectSchema) });

export type GrantsDto = z.output<typeof GrantsSchema>;
export type GrantDto = z.output<typeof GrantSchema>;
export type GrantInputT = z.output<typeof GrantInput>;
