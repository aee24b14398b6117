import { describe, expect, it } from "vitest";
import {
  assertPermissions,
  hasPermission,
  isSubset,
  isValidPermission,
} from "../../src/domain/permissions.ts";

describe("permissions", () => {
  it("validates resource:action strings", () => {
    for (const p of [
      "file:read",
      "file:*",
      "*:*",
      "org:admin",
      "user:manage",
      "role:manage",
      "group:manage",
    ]) {
      expect(isValidPermission(p), p).toBe(true);
    }
    for (const p of [
      "file",
      "file:",
      ":read",
      "FILE:READ",
      "files:read",
      "file:fly",
      "file:read:x",
      " file:read",
      5,
    ]) {
      expect(isValidPermission(p), String(p)).toBe(false);
    }
  });

  it("assertPermissions throws 400 on the first bad entry and de-duplicates", () => {
    expect(assertPermissions(["file:read", "file:read", "org:read"])).toEqual(["file:read", "org:read"]);
    expect(() => assertPermissions(["file:read", "nope"])).toThrow(/invalid permission "nope"/);
  });

  it("matches wildcards in actions and resources", () => {
    expect(hasPermission(["file:*"], "file:delete")).toBe(true);
    expect(hasPermission(["file:*"], "org:read")).toBe(false);
    expect(hasPermission(["*:*"], "user:manage")).toBe(true);
    expect(hasPermission(["*:read"], "org:read")).toBe(true);
    expect(hasPermission(["*:read"], "org:admin")).toBe(false);
    expect(hasPermission([], "file:read")).toBe(false);
  });

  it("isSubset: a wildcard is only covered by an equal or wider wildcard", () => {
    expect(isSubset(["file:read"], ["file:*"])).toBe(true);
    expect(isSubset(["file:*"], ["file:read", "file:write", "file:delete"])).toBe(false);
    expect(isSubset(["file:*"], ["*:*"])).toBe(true);
    expect(isSubset(["*:*"], ["file:*", "org:*"])).toBe(false);
    expect(isSubset(["*:read"], ["file:read"])).toBe(false);
    expect(isSubset(["user:manage"], ["file:*", "org:read", "apikey:*"])).toBe(false);
    expect(isSubset([], [])).toBe(true);
  });
});
