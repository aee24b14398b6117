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

/** The body of an operation that has nothing else to answer (delete, revoke, detach...). */
export const SuccessSchema = z.object({ success: z.boolean() }).openapi("Success");

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

const STATUS_TEXT: Record<number, string> = {
  400: "Invalid input",
  401: "Missing or invalid credentials",
  403: "Not allowed",
  404: "Not found, or belongs to another organization, or not readable under folder grants",
  409: "Conflict",
  412: "Precondition failed",
  413: "Too large",
  415: "Unsupported media type",
  416: "Range not satisfiable",
  423: "Locked",
  429: "Rate limit exceeded",
  500: "Internal error",
  503: "Unavailable",
  507: "Insufficient storage",
};

/** Each status's wire codes, derived from the error table (one source: errors.ts). */
const CODES_BY_STATUS = (() => {
  const out = new Map<number, string[]>();
  for (const e of Object.values(ERRORS)) {
    const list = out.get(e.http) ?? [];
    if (!list.includes(e.wire)) list.push(e.wire);
    out.set(e.http, list);
  }
  return out;
})();

/** OpenAPI response entries for the given error statuses, described from the error table. */
export function errorResponses(...statuses: number[]) {
  const out: Record<
    number,
    { description: string; content: { "application/json": { schema: typeof ErrorSchema } } }
  > = {};
  for (const s of statuses) {
    const codes = CODES_BY_STATUS.get(s);
    out[s] = {
      description: `${STATUS_TEXT[s] ?? "Error"}${codes ? ` (${codes.join(", ")})` : ""}`,
      content: { "application/json": { schema: ErrorSchema } },
    };
  }
  return out;
}

/** An OpenAPI JSON body or response entry for `schema`. */
export const json = <T>(schema: T) => ({ content: { "application/json": { schema } } });

/** An OpenAPI request part with a required JSON body of `schema`. */
export const body = <T>(schema: T) => ({ body: { ...json(schema), required: true } });

/** Security requirement for routes that need a bearer token or an API key. */
export const SECURED: Record<string, string[]>[] = [{ BearerAuth: [] }, { ApiKeyAuth: [] }];
