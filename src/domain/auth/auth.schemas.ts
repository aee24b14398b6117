import { z } from "@hono/zod-openapi";
import { OrgName } from "../orgs/orgs.schemas.ts";
import { DisplayName, Email, Password, Username } from "../users/users.schemas.ts";

export const LoginInput = z
  .object({
    username: z.string().min(1).max(256),
    password: z.string().min(1).max(1024),
  })
  .openapi("LoginRequest");

export const RefreshInput = z
  .object({ refresh_token: z.string().min(1).max(8192) })
  .openapi("RefreshRequest");

export const UserSchema = z
  .object({
    id: z.string(),
    username: z.string(),
    email: z.string(),
    organization_id: z.string(),
    is_active: z.boolean(),
    created_at: z.string(),
  })
  .openapi("User");

export const TokenPairSchema = z
  .object({
    access_token: z.string(),
    refresh_token: z.string(),
    expires_in: z.number().int().openapi({ example: 900 }),
    user: UserSchema,
  })
  .openapi("TokenPair");

export const RegisterInput = z
  .object({
    username: Username,
    email: Email,
    password: Password,
    organization_name: OrgName.optional().openapi({
      description: "Creates this organization with the user as its Admin; default: one named after the user",
    }),
  })
  .openapi("RegisterRequest");

/** Asked for by the caller changing their password; without it their keys keep working (docs/api.md). */
export const RevokeApiKeys = z.boolean().optional().openapi({
  description:
    "Revoke all of the caller's API keys too (default false: keys are listed by GET /auth/api-keys with last_used_at; revoke them there or here when the account may have been used by someone else).",
});

export const ChangePasswordInput = z
  .object({ current_password: Password, new_password: Password, revoke_api_keys: RevokeApiKeys })
  .openapi("ChangePasswordRequest");

/** `PUT /auth/password`: `old_password` or `current_password` (docs/api.md: both are accepted). */
export const PasswordUpdateInput = z
  .object({
    old_password: Password.optional(),
    current_password: Password.optional(),
    new_password: Password,
    revoke_api_keys: RevokeApiKeys,
  })
  .refine((v) => v.old_password !== undefined || v.current_password !== undefined, {
    message: "old_password or current_password is required",
    path: ["old_password"],
  })
  .openapi("PasswordUpdateRequest");

export const ProfileUpdateInput = z
  .object({
    username: Username.optional(),
    email: Email.optional(),
    display_name: DisplayName.nullable().optional(),
  })
  .openapi("ProfileUpdateRequest");

export type Register = z.infer<typeof RegisterInput>;
export type ProfileUpdate = z.infer<typeof ProfileUpdateInput>;
