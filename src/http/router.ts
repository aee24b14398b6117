import { OpenAPIHono, z } from "@hono/zod-openapi";
import type { MiddlewareHandler } from "hono";
import { validationError } from "../domain/parse-input.ts";
import { ERRORS } from "../errors.ts";
import type { RateLimiter } from "../platform/rate-limiter.ts";
import type { Env, Router } from "./env.ts";

/**
 * A router whose request validation failures become 400 ERR_VALIDATION with
 * the offending fields in `details`, like every other error.
 */
export function newRouter(): Router {
  return new OpenAPIHono<Env>({
    defaultHook: (result) => {
      if (!result.success)
        throw validationError(result.error, result.target === "json" ? "body" : result.target);
    },
  });
}

/** Middlewares a route module may put in front of its routes. */
export interface Guards {
  /** Authenticate (401), per-user rate limit, and check `permission` at the entry (403). */
  auth(permission?: string): MiddlewareHandler<Env>;
  /**
   * `auth` for media reads (streams, ranges, thumbnails, HLS): the same checks,
   * counted against the user's media budget (rate_limit.media_per_minute)
   * instead of the API budget, so scrubbing never starves the API nor the reverse.
   */
  media(permission?: string): MiddlewareHandler<Env>;
  /** The per-user media limiter, for stream-token requests (counted against the token's user). */
  mediaBudget: RateLimiter;
  /** Per-IP limit shared by login and register. */
  login: MiddlewareHandler<Env>;
  /** Per-IP limit of the other auth endpoints (refresh, logout, ...). */
  authEndpoints: MiddlewareHandler<Env>;
}

/** The error body of every failure, for OpenAPI responses. */
export const ErrorSchema = z
  .object({
    error: z.object({
      code: z.string().openapi({
        example: "ERR_NOT_FOUND",
        enum: [...new Set(Object.values(ERRORS).map((e) => e.wire))],
        description: `Stable error code; its HTTP status: ${Object.values(ERRORS)
          .map((e) => `${e.wire} ${e.http}`)
          .join(", ")}.`,
      }),
      message: z.string(),
      details: z.record(z.string(), z.unknown()).optional(),
    }),
  })
  .openapi("Error");

/** OpenAPI response entries for the given error statuses. */
export function errorResponses(...statuses: number[]) {
  const descriptions: Record<number, string> = {
    400: "Invalid input (ERR_VALIDATION, ERR_WEAK_PASSWORD)",
    401: "Missing or invalid credentials (ERR_UNAUTHENTICATED, ERR_INVALID_CREDENTIALS)",
    403: "Not allowed (ERR_PERMISSION_DENIED, ERR_REGISTRATION_DISABLED, ERR_READ_ONLY, ERR_FORBIDDEN_PATH)",
    404: "Not found, or belongs to another organization (ERR_NOT_FOUND, ERR_FILE_NOT_FOUND, ERR_DIRECTORY_NOT_FOUND)",
    409: "Conflict (ERR_CONFLICT)",
    413: "Too large (ERR_PAYLOAD_TOO_LARGE)",
    416: "Range not satisfiable (ERR_RANGE_NOT_SATISFIABLE)",
    429: "Rate limit exceeded (RATE_LIMIT_EXCEEDED)",
    500: "Internal error (ERR_INTERNAL)",
    503: "Unavailable (ERR_UNAVAILABLE)",
  };
  const out: Record<
    number,
    { description: string; content: { "application/json": { schema: typeof ErrorSchema } } }
  > = {};
  for (const s of statuses) {
    out[s] = {
      description: descriptions[s] ?? "Error",
      content: { "application/json": { schema: ErrorSchema } },
    };
  }
  return out;
}

/** An OpenAPI JSON body or response entry for `schema`. */
export const json = <T>(schema: T) => ({ content: { "application/json": { schema } } });

/** An OpenAPI request part with a required JSON body of `schema`. */
export const body = <T>(schema: T) => ({ body: { ...json(schema), required: true } });

/** An OpenAPI 200 response entry with a JSON body of `schema`. */
export const ok = <T>(description: string, schema: T) => ({ 200: { description, ...json(schema) } });

/** Security requirement for routes that need a bearer token or an API key. */
export const SECURED: Record<string, string[]>[] = [{ BearerAuth: [] }, { ApiKeyAuth: [] }];
