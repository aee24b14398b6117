import type { z } from "zod";
import { AppError } from "../errors.ts";

/**
 * The 400 ERR_VALIDATION for a failed zod parse, the one mapping of every
 * validation failure (REST request validation, every service's parseInput,
 * search): the message names the first bad field (or `where`, the input as
 * a whole: "body", "query", "input"), `details.issues` lists every issue.
 */
export function validationError(error: z.ZodError, where = "input"): AppError {
  const issues = error.issues.map((i) => ({ path: i.path.join("."), message: i.message }));
  const first = issues[0];
  return new AppError("VALIDATION", first ? `${first.path || where}: ${first.message}` : `invalid ${where}`, {
    issues,
  });
}

/**
 * Validates a service input with the area's zod schema. Failures become
 * 400 ERR_VALIDATION (see validationError), so RPC callers (which skip
 * REST's request validation) get the same answer as REST ones instead of a 500.
 */
export function parseInput<S extends z.ZodType>(schema: S, input: unknown, where = "input"): z.output<S> {
  const parsed = schema.safeParse(input);
  if (parsed.success) return parsed.data;
  throw validationError(parsed.error, where);
}
