import { Code } from "@connectrpc/connect";
import { describe, expect, it } from "vitest";
import { AppError, ERRORS, type ErrorCode, errorBody, fromSystemError } from "../../src/errors.ts";
import { toAppError } from "../../src/http/on-error.ts";
import { createLogger } from "../../src/log.ts";

/** The stable codes of docs/api.md (accounts and tokens): wire code → HTTP status. */
const STABLE: Record<string, number> = {
  ERR_VALIDATION: 400,
  ERR_WEAK_PASSWORD: 400,
  ERR_UNAUTHENTICATED: 401,
  ERR_INVALID_CREDENTIALS: 401,
  ERR_PERMISSION_DENIED: 403,
  ERR_REGISTRATION_DISABLED: 403,
  ERR_NOT_FOUND: 404,
  ERR_FILE_NOT_FOUND: 404,
  ERR_DIRECTORY_NOT_FOUND: 404,
  ERR_CONFLICT: 409,
  ERR_PAYLOAD_TOO_LARGE: 413,
  ERR_RANGE_NOT_SATISFIABLE: 416,
  RATE_LIMIT_EXCEEDED: 429,
  ERR_INTERNAL: 500,
  ERR_UNAVAILABLE: 503,
};

/** The RPC table of docs/api.md: HTTP status class → Connect code (410 added for share links). */
const RPC_BY_STATUS: Record<number, Code[]> = {
  400: [Code.InvalidArgument],
  401: [Code.Unauthenticated],
  403: [Code.PermissionDenied],
  404: [Code.NotFound],
  409: [Code.AlreadyExists, Code.ResourceExhausted],
  // A share link past its expiry or download limit: the resource is gone, not missing.
  410: [Code.FailedPrecondition],
  412: [Code.FailedPrecondition],
  413: [Code.ResourceExhausted],
  415: [Code.InvalidArgument],
  416: [Code.OutOfRange],
  429: [Code.ResourceExhausted],
  // A search whose client went away while it waited (nginx's "client closed request").
  499: [Code.Canceled],
  500: [Code.Internal],
  503: [Code.Unavailable],
  507: [Code.ResourceExhausted],
};

const silent = createLogger("silent");

describe("error table", () => {
  const rows = Object.entries(ERRORS) as [ErrorCode, (typeof ERRORS)[ErrorCode]][];

  it("has every stable wire code of docs/api.md with its status", () => {
    const byWire = new Map(rows.map(([, r]) => [r.wire as string, r.http as number]));
    for (const [wire, status] of Object.entries(STABLE)) expect(byWire.get(wire), wire).toBe(status);
  });

  it("maps every code to a 4xx/5xx status, a matching Connect code and a unique wire code", () => {
    const wires = new Set<string>();
    for (const [code, row] of rows) {
      expect(row.http, code).toBeGreaterThanOrEqual(400);
      expect(row.http, code).toBeLessThan(600);
      expect(RPC_BY_STATUS[row.http], `${code} ${row.http}`).toContain(row.rpc);
      expect(row.wire, code).toMatch(/^(ERR_[A-Z_]+|RATE_LIMIT_EXCEEDED)$/);
      expect(wires.has(row.wire), row.wire).toBe(false);
      wires.add(row.wire);
      const err = new AppError(code, "m");
      expect([err.status, err.wire]).toEqual([row.http, row.wire]);
    }
  });

  it("writes variant (a) bodies, details only when given", () => {
    expect(errorBody(new AppError("FILE_NOT_FOUND", "file not found"))).toEqual({
      error: { code: "ERR_FILE_NOT_FOUND", message: "file not found" },
    });
    expect(errorBody(new AppError("VALIDATION", "bad", { field: "name" }))).toEqual({
      error: { code: "ERR_VALIDATION", message: "bad", details: { field: "name" } },
    });
  });

  it("turns unknown errors into 500 ERR_INTERNAL with a generic message, keeping no internals", () => {
    const secret = new Error("SQLITE_ERROR: near 'DROP': syntax error at /srv/attic/db.ts:12");
    const mapped = toAppError(secret, silent);
    expect(mapped.code).toBe("INTERNAL");
    const body = JSON.stringify(errorBody(mapped));
    expect(body).not.toMatch(/SQLITE|DROP|db\.ts|at /);
    expect(toAppError(new TypeError("x is undefined"), silent).code).toBe("INTERNAL");
    expect(toAppError("a string", silent).code).toBe("INTERNAL");
  });

  it("maps disk-full and busy database errors to 507 and 503", () => {
    expect(fromSystemError(Object.assign(new Error("x"), { code: "ENOSPC" }))?.status).toBe(507);
    expect(fromSystemError(Object.assign(new Error("x"), { code: "SQLITE_BUSY" }))?.status).toBe(503);
    expect(fromSystemError(new Error("x"))).toBeUndefined();
  });
});
