import type { Context } from "hono";
import { HTTPException } from "hono/http-exception";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import { AppError, errorBody, fromSystemError } from "../errors.ts";
import type { Logger } from "../log.ts";

/**
 * A body the route does not take (the OpenAPI router's media-type gate; every
 * route it guards takes JSON, multipart uploads check their own): 400
 * ERR_VALIDATION like any other bad input (the spec's status table has no
 * 415), saying what to send instead of the library's bare "Unsupported Media Type".
 */
const unsupportedBody = (): AppError =>
  new AppError("VALIDATION", "the body must be JSON, sent with Content-Type: application/json", {
    expected_content_type: "application/json",
  });

/** The REST answer for an error: AppErrors as they are, anything else 500 with no internals. */
export function toAppError(err: unknown, log: Logger): AppError {
  const known = fromSystemError(err);
  if (known) {
    if (known.status >= 500) log.error({ err }, known.message);
    return known;
  }
  if (err instanceof HTTPException) {
    const status = err.status;
    if (status === 413) return new AppError("PAYLOAD_TOO_LARGE", "request body too large");
    if (status === 400) return new AppError("VALIDATION", err.message || "bad request");
    if (status === 401) return new AppError("UNAUTHENTICATED", "authentication required");
    if (status === 404) return new AppError("NOT_FOUND", "not found");
    if (status === 415) return unsupportedBody();
    if (status < 500) return new AppError("VALIDATION", err.message || "bad request");
  }
  if (err instanceof SyntaxError) return new AppError("VALIDATION", "malformed JSON body");
  log.error({ err }, "unhandled error");
  return new AppError("INTERNAL", "internal server error");
}

/** Writes the `{"error": {...}}` body with the error table's status. */
export function errorResponse(c: Context, err: AppError, headers?: Record<string, string>): Response {
  const extra = { ...headers };
  // Refusing a body we did not read: tell an HTTP/1.1 client not to reuse the socket.
  const incoming = (c.env as { incoming?: { httpVersionMajor?: number } } | undefined)?.incoming;
  if (err.status === 413 && incoming?.httpVersionMajor === 1) extra.Connection = "close";
  return c.json(errorBody(err), err.status as ContentfulStatusCode, extra);
}
