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
