import type { z } from "zod";
import { AppError } from "../errors.ts";

/**
 * Validates a service input with the area's zod schema. Failures become
 * 400 ERR_VALIDATION naming the first bad field, with every issue in
 * `details`, so RPC callers (which skip REST's request validation) get the
 * same answer as REST ones instead of a 500.
 */
export function parseInput<S extends z.ZodType>(schema: S, input: unknown): z.output<S> {
  const parsed = schema.safeParse(input);
  if (parsed.success) return parsed.data;
  const issues = parsed.error.issues.map((i) => ({ path: i.path.join("."), message: i.message }));
  const first = issues[0];
  throw new AppError("VALIDATION", first ? `${first.path || "body"}: ${first.message}` : "invalid input", {
    issues,
  });
}
