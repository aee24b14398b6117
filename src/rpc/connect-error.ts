import { fromJson, type JsonObject } from "@bufbuild/protobuf";
import { StructSchema } from "@bufbuild/protobuf/wkt";
import { Code, ConnectError } from "@connectrpc/connect";
import { type AppError, ERRORS, fromSystemError } from "../errors.ts";
import type { Logger } from "../log.ts";

/** Response header carrying the REST wire code of an error (e.g. ERR_FILE_NOT_FOUND). */
export const ERROR_CODE_HEADER = "attic-error-code";

/**
 * The RPC form of any error: an AppError keeps its message and gets the
 * Connect code of the one error table (src/errors.ts) plus its REST wire code
 * in the `attic-error-code` metadata; a ConnectError raised by the protocol
 * (limits, decoding, deadlines) passes through; anything else is logged with
 * its stack and answered Internal with a generic message.
 */
export function toConnectError(err: unknown, log: Logger): ConnectError {
  if (err instanceof ConnectError) {
    if (err.code === Code.Unknown) return internal(err, log);
    return err;
  }
  const known = fromSystemError(err);
  if (known) return fromAppError(known, log);
  return internal(err, log);
}

function fromAppError(err: AppError, log: Logger): ConnectError {
  const row = ERRORS[err.code];
  if (row.http >= 500) log.error({ err }, err.message);
  // Details (e.g. which fields failed validation) travel as a google.protobuf.Struct error detail.
  const details = err.details
    ? [{ desc: StructSchema, value: fromJson(StructSchema, structOf(err.details)) }]
    : undefined;
  return new ConnectError(err.message, row.rpc, { [ERROR_CODE_HEADER]: row.wire }, details, err);
}

function internal(err: unknown, log: Logger): ConnectError {
  log.error({ err }, "unhandled error in RPC");
  return new ConnectError("internal server error", Code.Internal, {
    [ERROR_CODE_HEADER]: ERRORS.INTERNAL.wire,
  });
}

/** A JSON-safe copy of error details (drops what JSON cannot carry). */
function structOf(details: Record<string, unknown>): JsonObject {
  try {
    return JSON.parse(JSON.stringify(details)) as JsonObject;
  } catch {
    return {};
  }
}
