import type { z } from "zod";
import { AppError } from "../errors.ts";

/**
 * The 400 ERR_VALIDATION for a failed zod parse: the message names the
 * first bad field, `details.issues` lists every issue. REST's request
 * validation and the services' `parseInput` both answer with it.
 */
export function validationError(error: z.ZodError, fallback = "invalid input"): AppError {
  const issues = error.issues.map((i) => ({ path: i.path.join("."), message: i.message }));
  const first = issues[0];
  return new AppError("VALIDATION", first ? `${first.path || "body"}: ${first.message}` : fallback, {
    issues,
  });
}

/**
 * Validates a service input with the area's zod schema. Failures become
 * 400 ERR_VALIDATION (see validationError), so RPC callers (which skip
 * REST's request validation) get the same answer as REST ones instead of a 500.
 */
export function parseInput<S extends z.ZodType>(schema: S, input: unknown): z.output<S> {
  const parsed = schema.safeParse(input);
  if (parsed.success) return parsed.data;
  throw validationError(parsed.error);
}
