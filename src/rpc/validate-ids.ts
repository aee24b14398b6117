import type { Interceptor } from "@connectrpc/connect";
import { AppError } from "../errors.ts";
import { isId } from "../platform/ids.ts";

/**
 * Refuses an id that cannot be one before any service looks it up, as REST's
 * `:id` parameter validation does (400 there, `invalid_argument` here): a
 * string field named `id` or `*_id` of a unary request must be empty (for
 * the optional ones: the top, or "not given") or a UUID, and `id` itself
 * must be given. Without this a malformed id answered `not_found`.
 */
export function idsInterceptor(): Interceptor {
  return (next) => async (req) => {
    if (!req.stream) {
      const message = req.message as unknown as Record<string, unknown>;
      for (const field of req.method.input.fields) {
        if (field.fieldKind !== "scalar" || !(field.name === "id" || field.name.endsWith("_id"))) continue;
        const value = message[field.localName];
        if (typeof value !== "string") continue;
        if (value === "" ? field.name === "id" : !isId(value)) {
          const problem = value === "" ? "required" : "not a valid id";
          throw new AppError("VALIDATION", `${field.name}: ${problem}`, {
            fields: { [field.name]: problem },
          });
        }
      }
    }
    return next(req);
  };
}
