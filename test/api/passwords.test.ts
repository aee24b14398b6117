import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createUser, GOOD_PASSWORD, register, type Session } from "../helpers/accounts.ts";
import { ADMIN_PASSWORD, startServer, type TestServer } from "../helpers/server.ts";

/** A password change and a reset, and what they do to sessions and API keys (docs/api.md, "Passwords"). */
describe("passwords: reset, change and API keys", () => {
  let s: TestServer;
  let admin: string;

  beforeAll(async () => {
    s = await startServer({ auth: { registration_enabled: true } });
    admin = await s.login();
  });
  afterAll(() => s.close());

  const profileId = async (token: string) =>
    (await s.api("GET", "/api/v1/auth/profile", { token })).body.id as string;
  const newKey = async (u: Session) => {
    const r = await s.api("POST", "/api/v1/api-keys", {
      token: u.token,
      body: { name: "sync", permissions: ["file:read"] },
    });
    expect(r.status).toBe(201);
    return { apiKey: r.body.key as string };
  };
  const keyWorks = async (key: { apiKey: string }) =>
    (await s.api("GET", "/api/v1/files", { token: key })).status;

  it("an admin cannot reset their own password without the current one: 400, nothing changes", async () => {
    const orgAdmin = await register(s, "tenant-admin");
    for (const [who, token, username, password] of [
      ["instance admin", admin, "admin", ADMIN_PASSWORD],
      ["organization admin", orgAdmin.token, "tenant-admin", GOOD_PASSWORD],
    ] as const) {
      const r = await s.api("POST", `/api/v1/users/${await profileId(token)}/reset-password`, {
        token,
        body: { new_password: "taken-Over-pass-42" },
      });
      expect([who, r.status, r.body.error?.code]).toEqual([who, 400, "ERR_VALIDATION"]);
      expect(r.body.error.message).toMatch(/PUT \/api\/v1\/auth\/password/);
      // The session goes on, the password is the old one, and none is to be changed.
      const profile = await s.api("GET", "/api/v1/auth/profile", { token });
      expect([who, profile.status, profile.body.must_change_password]).toEqual([who, 200, false]);
      const taken = await s.api("POST", "/api/v1/auth/login", {
        body: { username, password: "taken-Over-pass-42" },
      });
      expect([who, taken.status]).toEqual([who, 401]);
      expect(await s.login(username, password)).toBeTruthy();
    }
  });

  it("a reset of another user revokes their API keys, unless revoke_api_keys is false", async () => {
    const reset = (id: string, extra: Record<string, unknown> = {}) =>
      s.api("POST", `/api/v1/users/${id}/reset-password`, {
        token: admin,
        body: { new_password: "reset-Strong-pass-11", ...extra },
      });
    const taken = await createUser(s, admin, "compromised");
    const attackers = await newKey(taken);
    expect(await keyWorks(attackers)).toBe(200);
    expect((await reset(taken.userId)).status).toBe(200);
    expect(await keyWorks(attackers)).toBe(401);

    const forgetful = await createUser(s, admin, "forgetful-sync");
    const own = await newKey(forgetful);
    expect((await reset(forgetful.userId, { revoke_api_keys: false })).status).toBe(200);
    // Held back until the user picks their own password, like their sessions, then back at work.
    expect(await keyWorks(own)).toBe(403);
    const fresh = await s.login("forgetful-sync", "reset-Strong-pass-11");
    const changed = await s.api("PUT", "/api/v1/auth/password", {
      token: fresh,
      body: { current_password: "reset-Strong-pass-11", new_password: "chosen-Strong-pass-12" },
    });
    expect(changed.status).toBe(200);
    expect(await keyWorks(own)).toBe(200);
  });

  it("a password change keeps the caller's API keys, or revokes them all when asked (both routes)", async () => {
    const u = await createUser(s, admin, "rotator");
    const kept = await newKey(u);
    let password = GOOD_PASSWORD;
    let n = 0;
    const change = async (route: "POST" | "PUT", extra: Record<string, unknown> = {}) => {
      const token = await s.login("rotator", password);
      const next = `rotated-Strong-pass-${++n}`;
      const r = await s.api(
        route,
        route === "POST" ? "/api/v1/auth/change-password" : "/api/v1/auth/password",
        {
          token,
          body: {
            [route === "POST" ? "current_password" : "old_password"]: password,
            new_password: next,
            ...extra,
          },
        },
      );
      expect(r.status).toBe(200);
      password = next;
    };
    await change("POST");
    expect(await keyWorks(kept)).toBe(200);
    await change("PUT", { revoke_api_keys: false });
    expect(await keyWorks(kept)).toBe(200);
    await change("PUT", { revoke_api_keys: true });
    expect(await keyWorks(kept)).toBe(401);
    const again = await newKey({ ...u, token: await s.login("rotator", password) });
    await change("POST", { revoke_api_keys: true });
    expect(await keyWorks(again)).toBe(401);
    const bad = await s.api("POST", "/api/v1/auth/change-password", {
      token: await s.login("rotator", password),
      body: { current_password: password, new_password: "other-Strong-pass-77", revoke_api_keys: "yes" },
    });
    expect([bad.status, bad.body.error?.code]).toEqual([400, "ERR_VALIDATION"]);
  });
});
