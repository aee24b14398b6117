import { toJson } from "@bufbuild/protobuf";
import { StructSchema } from "@bufbuild/protobuf/wkt";
import { Code, ConnectError } from "@connectrpc/connect";
import { describe, expect, it } from "vitest";
import { AppError } from "../../src/errors.ts";
import { createLogger } from "../../src/log.ts";
import { ERROR_CODE_HEADER, toConnectError } from "../../src/rpc/connect-error.ts";

const log = createLogger("silent");

describe("toConnectError", () => {
  it("maps AppErrors through the one error table, with the REST wire code as metadata", () => {
    const cases: [AppError, Code][] = [
      [new AppError("FILE_NOT_FOUND", "file not found"), Code.NotFound],
      [new AppError("VALIDATION", "name: too long"), Code.InvalidArgument],
      [new AppError("CONFLICT", "exists"), Code.AlreadyExists],
      [new AppError("PERMISSION_DENIED", "no"), Code.PermissionDenied],
      [new AppError("RATE_LIMITED", "slow down"), Code.ResourceExhausted],
      [new AppError("UNAUTHENTICATED", "who?"), Code.Unauthenticated],
      [new AppError("UNAVAILABLE", "later"), Code.Unavailable],
    ];
    for (const [err, code] of cases) {
      const mapped = toConnectError(err, log);
      expect(mapped.code, err.code).toBe(code);
      expect(mapped.rawMessage).toBe(err.message);
      expect(mapped.metadata.get(ERROR_CODE_HEADER)).toBe(err.wire);
    }
  });

  it("carries AppError details as a google.protobuf.Struct error detail", () => {
    const err = new AppError("VALIDATION", "name: too long", {
      issues: [{ path: "name", message: "too long" }],
    });
    const [detail] = toConnectError(err, log).findDetails(StructSchema);
    expect(detail && toJson(StructSchema, detail)).toEqual({
      issues: [{ path: "name", message: "too long" }],
    });
  });

  it("answers unknown errors as a generic Internal, keeping the cause for the log only", () => {
    const secret = new Error("SQLITE_ERROR: no such column: password_hash in SELECT * FROM users");
    const mapped = toConnectError(secret, log);
    expect(mapped.code).toBe(Code.Internal);
    expect(mapped.rawMessage).toBe("internal server error");
    expect(mapped.message).not.toContain("password_hash");
    const unknown = toConnectError(new ConnectError("boom at x.ts:12", Code.Unknown), log);
    expect(unknown.code).toBe(Code.Internal);
    expect(unknown.rawMessage).toBe("internal server error");
  });

  it("keeps protocol errors and maps busy databases to Unavailable", () => {
    const limit = new ConnectError("message too large", Code.ResourceExhausted);
    expect(toConnectError(limit, log)).toBe(limit);
    const busy = Object.assign(new Error("database is locked"), { code: "SQLITE_BUSY" });
    expect(toConnectError(busy, log).code).toBe(Code.Unavailable);
  });
});
