import pino, { type Logger } from "pino";

export type { Logger };

/** Paths pino blanks out wherever they appear in a log line. */
const REDACT = [
  "password",
  "*.password",
  "*.new_password",
  "*.current_password",
  "*.old_password",
  "*.token",
  "*.access_token",
  "*.refresh_token",
  "*.key",
  "req.headers.authorization",
  "req.headers.cookie",
  'req.headers["x-api-key"]',
  "headers.authorization",
  'headers["x-api-key"]',
];

/**
 * The root logger: JSON lines on stderr (stdout carries only the
 * "listening" line), secrets redacted.
 */
export function createLogger(
  level: string,
  destination: pino.DestinationStream = pino.destination(2),
): Logger {
  return pino(
    {
      level,
      base: { service: "attic" },
      redact: { paths: REDACT, censor: "[redacted]" },
      timestamp: pino.stdTimeFunctions.isoTime,
    },
    destination,
  );
}

/**
 * A logger like `log` (same bindings, level and destination) without the
 * redaction pass, for lines whose every field Attic builds itself from
 * values that are never secret: the per-request line (method, route, path
 * without its query, status, duration, user id, request id). pino's
 * redaction parses its paths and walks the object on every call: ~13 µs of
 * a line's ~15 here, a third of a small request's CPU at the default level.
 * Anything that logs an object from elsewhere (an error, a config, a
 * request's headers) keeps `log`.
 */
export function unredacted(log: Logger): Logger {
  return log.child({}, { redact: [] });
}
