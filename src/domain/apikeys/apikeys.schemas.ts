import { z } from "@hono/zod-openapi";
import { Label } from "../users/users.schemas.ts";

/** An API key as listed: never the secret. */
export const ApiKeySchema = z
  .object({
    id: z.string(),
    name: z.string(),
    prefix: z.string().openapi({ description: "First characters of the key, to tell keys apart" }),
    permissions: z.array(z.string()),
    created_at: z.string(),
    last_used_at: z.string().nullable(),
    expires_at: z.string().nullable(),
  })
  .openapi("ApiKey");

/** The answer to creation: the one time the secret `key` is shown. */
export const CreatedApiKeySchema = ApiKeySchema.omit({ last_used_at: true })
  .extend({ key: z.string().openapi({ description: "The secret; send it as X-API-Key. Shown only once." }) })
  .openapi("CreatedApiKey");

export const ApiKeyListSchema = z.object({ keys: z.array(ApiKeySchema) }).openapi("ApiKeyList");

export const CreateApiKeyInput = z
  .object({
    name: Label(100),
    organization_id: z
      .string()
      .max(100)
      .optional()
      .openapi({ description: "When given, must be the caller's organization" }),
    permissions: z
      .array(z.string().min(1).max(65))
      .min(1)
      .max(100)
      .openapi({ example: ["file:read"] }),
    expires_at: z.iso
      .datetime({ offset: true })
      .optional()
      .openapi({ description: "ISO 8601 timestamp in the future" }),
  })
  .openapi("CreateApiKeyRequest");

export type ApiKey = z.infer<typeof ApiKeySchema>;
export type CreatedApiKey = z.infer<typeof CreatedApiKeySchema>;
export type CreateApiKey = z.infer<typeof CreateApiKeyInput>;
