import { Code } from "./platform/rpc-code.ts";

/**
 * Every error a client can see. One row per code: its HTTP status, its
 * Connect/gRPC code and its wire code in REST bodies. REST and RPC both map
 * through this table, so the same failure answers alike on both.
 */
export const ERRORS = {
  VALIDATION: { http: 400, rpc: Code.InvalidArgument, wire: "ERR_VALIDATION" },
  WEAK_PASSWORD: { http: 400, rpc: Code.InvalidArgument, wire: "ERR_WEAK_PASSWORD" },
  UNAUTHENTICATED: { http: 401, rpc: Code.Unauthenticated, wire: "ERR_UNAUTHENTICATED" },
  INVALID_CREDENTIALS: { http: 401, rpc: Code.Unauthenticated, wire: "ERR_INVALID_CREDENTIALS" },
  SHARE_PASSWORD_REQUIRED: { http: 401, rpc: Code.Unauthenticated, wire: "ERR_SHARE_PASSWORD" },
  PERMISSION_DENIED: { http: 403, rpc: Code.PermissionDenied, wire: "ERR_PERMISSION_DENIED" },
  REGISTRATION_DISABLED: { http: 403, rpc: Code.PermissionDenied, wire: "ERR_REGISTRATION_DISABLED" },
  ACCOUNT_DISABLED: { http: 403, rpc: Code.PermissionDenied, wire: "ERR_ACCOUNT_DISABLED" },
  PASSWORD_CHANGE_REQUIRED: { http: 403, rpc: Code.PermissionDenied, wire: "ERR_PASSWORD_CHANGE_REQUIRED" },
  READ_ONLY: { http: 403, rpc: Code.PermissionDenied, wire: "ERR_READ_ONLY" },
  FORBIDDEN_PATH: { http: 403, rpc: Code.PermissionDenied, wire: "ERR_FORBIDDEN_PATH" },
  NOT_FOUND: { http: 404, rpc: Code.NotFound, wire: "ERR_NOT_FOUND" },
  FILE_NOT_FOUND: { http: 404, rpc: Code.NotFound, wire: "ERR_FILE_NOT_FOUND" },
  DIRECTORY_NOT_FOUND: { http: 404, rpc: Code.NotFound, wire: "ERR_DIRECTORY_NOT_FOUND" },
  CONFLICT: { http: 409, rpc: Code.AlreadyExists, wire: "ERR_CONFLICT" },
  GONE: { http: 410, rpc: Code.FailedPrecondition, wire: "ERR_GONE" },
  LIMIT_REACHED: { http: 409, rpc: Code.ResourceExhausted, wire: "ERR_LIMIT_REACHED" },
  PAYLOAD_TOO_LARGE: { http: 413, rpc: Code.ResourceExhausted, wire: "ERR_PAYLOAD_TOO_LARGE" },
  RANGE_NOT_SATISFIABLE: { http: 416, rpc: Code.OutOfRange, wire: "ERR_RANGE_NOT_SATISFIABLE" },
  RATE_LIMITED: { http: 429, rpc: Code.ResourceExhausted, wire: "RATE_LIMIT_EXCEEDED" },
  /** The client went away before the work began (nginx's 499); nobody reads the answer. */
  CANCELLED: { http: 499, rpc: Code.Canceled, wire: "ERR_CANCELLED" },
  INTERNAL: { http: 500, rpc: Code.Internal, wire: "ERR_INTERNAL" },
  TIMEOUT: { http: 500, rpc: Code.Internal, wire: "ERR_TIMEOUT" },
  INSUFFICIENT_STORAGE: { http: 507, rpc: Code.ResourceExhausted, wire: "ERR_INSUFFICIENT_STORAGE" },
  UNAVAILABLE: { http: 503, rpc: Code.Unavailable, wire: "ERR_UNAVAILABLE" },
} as const satisfies Record<string, { http: number; rpc: Code; wire: string }>;

export type ErrorCode = keyof typeof ERRORS;

/**
 * The one error type of the domain. Its message and details reach clients;
 * `cause` is kept for logs only.
 */
export class AppError extends Error {
  override name = "AppError";
  readonly code: ErrorCode;
  readonly details?: Record<string, unknown>;
  constructor(
    code: ErrorCode,
    message: string,
    details?: Record<string, unknown>,
    options?: { cause?: unknown },
  ) {
    // A client's mistake (4xx) is answered, never logged with a stack: capturing
    // one cost ~6% of a 404's time. Server errors keep theirs.
    const limit = Error.stackTraceLimit;
    if (ERRORS[code].http < 500) Error.stackTraceLimit = 0;
    super(message, options);
    Error.stackTraceLimit = limit;
    this.code = code;
    if (details) this.details = details;
  }

  get status(): number {
    return ERRORS[this.code].http;
  }

  get wire(): string {
    return ERRORS[this.code].wire;
  }
}

export const notFound = (what = "resource", code: ErrorCode = "NOT_FOUND") =>
  new AppError(code, `${what} not found`);

export const invalid = (message: string, details?: Record<string, unknown>) =>
  new AppError("VALIDATION", message, details);

export const denied = (message = "permission denied") => new AppError("PERMISSION_DENIED", message);

/** The REST body of an error, variant (a) of docs/api.md. */
export function errorBody(err: AppError): { error: { code: string; message: string; details?: unknown } } {
  return {
    error: {
      code: err.wire,
      message: err.message,
      ...(err.details ? { details: err.details } : {}),
    },
  };
}

/** Maps SQLite and file-system failures that are the client's or the disk's, not ours. */
export function fromSystemError(err: unknown): AppError | undefined {
  if (err instanceof AppError) return err;
  const code = (err as { code?: string } | null)?.code;
  if (code === "ENOSPC" || code === "EDQUOT" || code === "SQLITE_FULL") {
    return new AppError("INSUFFICIENT_STORAGE", "not enough storage space", undefined, { cause: err });
  }
  if (code === "SQLITE_BUSY" || code === "SQLITE_LOCKED") {
    return new AppError("UNAVAILABLE", "the database is busy, retry shortly", undefined, { cause: err });
  }
  return undefined;
}
