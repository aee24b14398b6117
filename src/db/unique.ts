import { AppError } from "../errors.ts";

/** True when `err` is SQLite refusing a row because of a UNIQUE or PRIMARY KEY constraint. */
export function isUniqueViolation(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  return code === "SQLITE_CONSTRAINT_UNIQUE" || code === "SQLITE_CONSTRAINT_PRIMARYKEY";
}

/**
 * Runs `fn`; a unique-constraint failure becomes 409 ERR_CONFLICT with
 * `message`. The pre-checks of services give friendly messages; this closes
 * the race between a check and the insert.
 */
export function conflictOnUnique<T>(message: string, fn: () => T): T {
  try {
    return fn();
  } catch (err) {
    if (isUniqueViolation(err)) throw new AppError("CONFLICT", message, undefined, { cause: err });
    throw err;
  }
}
