import { describe, expect, it } from "vitest";
import { ActiveUsers } from "../../src/domain/auth/active-users.ts";
import { assertStrongPassword, weakPasswordReason } from "../../src/domain/auth/password-policy.ts";

describe("password policy (docs/api.md)", () => {
  it("rejects docs/api.md's examples and common patterns", () => {
    for (const p of [
      "password123",
      "12345678901",
      "aaaaaaaaaa",
      "short1!A",
      "Password2024!",
      "qwertyuiop",
      "abcdefghijk",
      "9876543210",
      "dragon-dragon",
      "ILoveYou123",
    ]) {
      expect(weakPasswordReason(p, "someone"), p).toBeDefined();
    }
  });

  it("rejects passwords containing the username, case-insensitively", () => {
    expect(weakPasswordReason("xx-ALICE-xx-Strong-9", "alice")).toMatch(/username/);
  });

  it("accepts strong passwords", () => {
    for (const p of ["correct-Horse-battery-9", "tulip orbit cactus lamp", "Zx8!qv#29LmP"]) {
      expect(weakPasswordReason(p, "alice"), p).toBeUndefined();
    }
  });

  it("throws 400 ERR_WEAK_PASSWORD", () => {
    expect(() => assertStrongPassword("password123", "bob")).toThrow(
      expect.objectContaining({ code: "WEAK_PASSWORD" }),
    );
  });
});

describe("ActiveUsers", () => {
  it("counts distinct users within the window and forgets older ones", () => {
    let now = 0;
    const a = new ActiveUsers(1000, () => now);
    a.touch("u1");
    a.touch("u2");
    a.touch("u1");
    expect(a.count()).toBe(2);
    now = 600;
    a.touch("u1");
    now = 1200;
    expect(a.count()).toBe(1);
    now = 1700;
    expect(a.count()).toBe(0);
  });
});
