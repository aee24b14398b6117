import { z } from "@hono/zod-openapi";

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

export const SuccessSchema = z.object({ success: z.boolean() }).openapi("Success");
