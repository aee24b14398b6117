import { z } from "@hono/zod-openapi";
import { DECEPTIVE } from "../files/names.ts";

/** 3–32 of `[A-Za-z0-9_.-]` (docs/api.md, accounts). */
export const Username = z
  .string()
  .regex(/^[A-Za-z0-9_.-]{3,32}$/, "username must be 3-32 characters of letters, digits, _ . -")
  .openapi({ example: "alice" });

/** A valid address, at most 254 characters (RFC 5321). */
export const Email = z.email("invalid email address").max(254).openapi({ example: "alice@example.com" });

/** A password as received; its strength is checked by the service (it needs the username). */
export const Password = z.string().min(1).max(1024).openapi({ format: "password" });

/** A one-line name: trimmed, 1..max characters, no control characters. */
export const Label = (max: number) =>
  z
    .string()
    .trim()
    .min(1)
    .max(max)
    .refine((v) => !/\p{Cc}/u.test(v), "must not contain control characters")
    .refine((v) => !DECEPTIVE.test(v), "must not contain bidi controls or zero-width characters");

/** A person's shown name: trimmed, at most 100 characters, nothing that hides or reorders text. */
export const DisplayName = z
  .string()
  .trim()
  .max(100)
  .refine((v) => !/\p{Cc}/u.test(v), "must not contain control characters")
  .refine((v) => !DECEPTIVE.test(v), "must not contain bidi controls or zero-width characters");

/** A role given by id or by name (case-insensitive). */
export const RoleRef = z.string().min(1).max(100).openapi({ example: "Member" });

export const RoleSummarySchema = z.object({ id: z.string(), name: z.string() }).openapi("RoleSummary");

/** A user as admins and the user themself see it; never the password. */
export const UserDetailSchema = z
  .object({
    id: z.string(),
    username: z.string(),
    email: z.string(),
    display_name: z.string().nullable(),
    organization_id: z.string(),
    is_active: z.boolean(),
    is_instance_admin: z.boolean(),
    must_change_password: z.boolean(),
    role: z.string().openapi({ description: "Name of the first role ('' when none)" }),
    roles: z.array(RoleSummarySchema),
    permissions: z.array(z.string()),
    created_at: z.string(),
    updated_at: z.string(),
    last_login_at: z.string().nullable(),
  })
  .openapi("UserDetail");

export const UserListSchema = z
  .object({
    users: z.array(UserDetailSchema),
    total: z.number().int(),
    limit: z.number().int(),
    offset: z.number().int(),
  })
  .openapi("UserList");

export const CreateUserInput = z
  .object({
    username: Username,
    email: Email,
    password: Password,
    role: RoleRef.optional().openapi({ description: "Role name or id; default Member" }),
    display_name: DisplayName.optional(),
  })
  .openapi("CreateUserRequest");

export const UpdateUserInput = z
  .object({
    display_name: DisplayName.nullable().optional(),
    email: Email.optional(),
    is_active: z.boolean().optional(),
    role: RoleRef.optional().openapi({ description: "Replaces the user's roles with this one (name or id)" }),
    is_instance_admin: z.boolean().optional().openapi({
      description:
        "Instance administrator: may mount host folders (watched folders) and manage other instance admins. Only an instance admin may set or clear it; the last active one cannot be cleared.",
    }),
  })
  .openapi("UpdateUserRequest");

export const ResetPasswordInput = z
  .object({
    new_password: Password,
    revoke_api_keys: z.boolean().optional().openapi({
      description:
        "Revoke the user's API keys too (default true): a reset is for an account out of its owner's hands, and keys made by whoever held it would outlive it. False keeps them (a forgotten password).",
    }),
  })
  .openapi("ResetPasswordRequest");

export type CreateUser = z.infer<typeof CreateUserInput>;
export type UpdateUser = z.infer<typeof UpdateUserInput>;
export type UserDetail = z.infer<typeof UserDetailSchema>;

/** The caller's own account (GET /auth/profile): its details and its personal folder. */
export const ProfileSchema = UserDetailSchema.extend({
  home_directory_id: z.string().openapi({
    description:
      "The caller's personal folder: visible to them alone unless they grant access (docs/access.md)",
  }),
}).openapi("Profile");
export type Profile = z.infer<typeof ProfileSchema>;
