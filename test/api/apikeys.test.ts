import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createUser, register, type Session } from "../helpers/accounts.ts";
import { startServer, type TestServer } from "../helpers/server.ts";

describe("API keys", () => {
  let s: TestServer;
  let admin: string;
  let member: Session;
  const create = (
    token: string | { apiKey: string },
    body: Record<string, unknown>,
    base = "/api/v1/api-keys",
  ) => s.api("POST", base, { token, body });

  beforeAll(async () => {
    s = await startServer({ auth: { max_api_keys_per_user: 3, registration_enabled: true } });
    admin = await s.login();
    member = await createUser(s, admin, "keyuser");
  });
  afterAll(() => s.close());

  it("creates a key (secret shown once), lists it without the secret, and it authenticates", async () => {
    const r = await create(
      member.token,
      { name: "reader", permissions: ["file:read"] },
      "/api/v1/auth/api-keys",
    );
    expect(r.status).toBe(201);
    expect(r.body).toMatchObject({ id: expect.any(String), name: "reader", permissions: ["file:read"] });
    expect(r.body.key).toMatch(/^attic_/);
    const list = await s.api("GET", "/api/v1/auth/api-keys", { token: member.token });
    expect(list.status).toBe(200);
    const listed = list.body.keys.find((k: { id: string }) => k.id === r.body.id);
    expect(listed).toMatchObject({ name: "reader", last_used_at: null });
    expect(list.text).not.toContain(r.body.key);
    // The key works for what it allows, and only that.
    const search = await s.api("GET", "/api/v1/search?q=x", { token: { apiKey: r.body.key } });
    expect(search.status).toBe(200);
    const users = await s.api("GET", "/api/v1/api-keys", { token: { apiKey: r.body.key } });
    expect(users.status).toBe(403);
    const after = await s.api("GET", "/api/v1/api-keys", { token: member.token });
    expect(after.body.keys.find((k: { id: string }) => k.id === r.body.id).last_used_at).toEqual(
      expect.any(String),
    );
    await s.api("DELETE", `/api/v1/api-keys/${r.body.id}`, { token: member.token });
  });

  it("refuses permissions beyond the creator's current ones, and malformed permissions", async () => {
    const wider = await create(member.token, { name: "wide", permissions: ["user:manage"] });
    expect(wider.status).toBe(403);
    const all = await create(member.token, { name: "all", permissions: ["*:*"] });
    expect(all.status).toBe(403);
    for (const name of ["line\nbreak", "\u202ekey", " "]) {
      const r = await create(member.token, { name, permissions: ["file:read"] });
      expect([JSON.stringify(name), r.status]).toEqual([JSON.stringify(name), 400]);
    }
    for (const permissions of [["file"], ["FILE:READ"], ["nope:read"], [], ["file:read", 3]]) {
      const r = await create(member.token, { name: "bad", permissions });
      expect(r.status, JSON.stringify(permissions)).toBe(400);
    }
  });

  it("a key cannot create a key wider than itself", async () => {
    const k = await create(member.token, { name: "k", permissions: ["apikey:write", "file:read"] });
    expect(k.status).toBe(201);
    const wider = await create({ apiKey: k.body.key }, { name: "wider", permissions: ["file:write"] });
    expect(wider.status).toBe(403);
    const same = await create({ apiKey: k.body.key }, { name: "narrower", permissions: ["file:read"] });
    expect(same.status).toBe(201);
    for (const id of [k.body.id, same.body.id])
      await s.api("DELETE", `/api/v1/api-keys/${id}`, { token: member.token });
  });

  it("revocation takes effect on the next request", async () => {
    const k = await create(member.token, { name: "revoke-me", permissions: ["file:read"] });
    expect((await s.api("GET", "/api/v1/auth/profile", { token: { apiKey: k.body.key } })).status).toBe(200);
    const del = await s.api("DELETE", `/api/v1/auth/api-keys/${k.body.id}`, { token: member.token });
    expect(del.status).toBe(200);
    expect(del.body).toEqual({ success: true });
    const r = await s.api("GET", "/api/v1/auth/profile", { token: { apiKey: k.body.key } });
    expect(r.status).toBe(401);
    expect((await s.api("DELETE", `/api/v1/api-keys/${k.body.id}`, { token: member.token })).status).toBe(
      404,
    );
  });

  it("checks expires_at: past refused, future accepted, expired keys stop", async () => {
    const past = await create(member.token, {
      name: "old",
      permissions: ["file:read"],
      expires_at: "2020-01-01T00:00:00Z",
    });
    expect(past.status).toBe(400);
    const garbage = await create(member.token, {
      name: "x",
      permissions: ["file:read"],
      expires_at: "tomorrow",
    });
    expect(garbage.status).toBe(400);
    const soon = new Date(Date.now() + 1500).toISOString();
    const k = await create(member.token, { name: "soon", permissions: ["file:read"], expires_at: soon });
    expect(k.status).toBe(201);
    expect(k.body.expires_at).toBe(soon);
    expect((await s.api("GET", "/api/v1/auth/profile", { token: { apiKey: k.body.key } })).status).toBe(200);
    await new Promise((r) => setTimeout(r, Date.parse(soon) - Date.now() + 50));
    expect((await s.api("GET", "/api/v1/auth/profile", { token: { apiKey: k.body.key } })).status).toBe(401);
  });

  it("enforces auth.max_api_keys_per_user with 409 ERR_LIMIT_REACHED", async () => {
    const u = await createUser(s, admin, "limituser");
    const ids = [];
    for (let i = 0; i < 3; i++) {
      const r = await create(u.token, { name: `k${i}`, permissions: ["file:read"] });
      expect(r.status).toBe(201);
      ids.push(r.body.id);
    }
    const over = await create(u.token, { name: "k3", permissions: ["file:read"] });
    expect(over.status).toBe(409);
    expect(over.body.error.code).toBe("ERR_LIMIT_REACHED");
    await s.api("DELETE", `/api/v1/api-keys/${ids[0]}`, { token: u.token });
    expect((await create(u.token, { name: "k4", permissions: ["file:read"] })).status).toBe(201);
  });

  it("organization_id must be the caller's own", async () => {
    const other = await register(s, "otherorg");
    const r = await create(member.token, {
      name: "x",
      permissions: ["file:read"],
      organization_id: other.orgId,
    });
    expect(r.status).toBe(404);
    const own = await create(member.token, {
      name: "own",
      permissions: ["file:read"],
      organization_id: member.orgId,
    });
    expect(own.status).toBe(201);
    await s.api("DELETE", `/api/v1/api-keys/${own.body.id}`, { token: member.token });
  });

  it("another organization's key answers 404 and is not listed", async () => {
    const other = await register(s, "keythief");
    const k = await create(member.token, { name: "mine", permissions: ["file:read"] });
    expect((await s.api("DELETE", `/api/v1/api-keys/${k.body.id}`, { token: other.token })).status).toBe(404);
    const list = await s.api("GET", "/api/v1/api-keys", { token: other.token });
    expect(list.body.keys).toEqual([]);
    expect((await s.api("GET", "/api/v1/auth/profile", { token: { apiKey: k.body.key } })).status).toBe(200);
  });

  it("a deactivated user's keys stop at once", async () => {
    const u = await createUser(s, admin, "leaver");
    const k = await create(u.token, { name: "k", permissions: ["file:read"] });
    expect((await s.api("GET", "/api/v1/auth/profile", { token: { apiKey: k.body.key } })).status).toBe(200);
    expect((await s.api("POST", `/api/v1/users/${u.userId}/deactivate`, { token: admin })).status).toBe(200);
    expect((await s.api("GET", "/api/v1/auth/profile", { token: { apiKey: k.body.key } })).status).toBe(401);
  });

  it("counts key usage in attic_api_key_usage_total", async () => {
    const k = await create(member.token, { name: "metered", permissions: ["file:read"] });
    const before = Number(/attic_api_key_usage_total (\d+)/.exec((await s.api("GET", "/metrics")).text)?.[1]);
    await s.api("GET", "/api/v1/auth/profile", { token: { apiKey: k.body.key } });
    await s.api("GET", "/api/v1/auth/profile", { token: { apiKey: k.body.key } });
    const after = Number(/attic_api_key_usage_total (\d+)/.exec((await s.api("GET", "/metrics")).text)?.[1]);
    expect(after - before).toBe(2);
  });

  it("a key cannot reset, re-address or re-role its own user (it would outlive its revocation)", async () => {
    const me = (await s.api("GET", "/api/v1/auth/profile", { token: admin })).body;
    const k = await create(admin, { name: "everything", permissions: ["*:*"] });
    expect(k.status).toBe(201);
    const key = { apiKey: k.body.key };
    const memberRole = (await s.api("GET", "/api/v1/roles", { token: admin })).body.roles.find(
      (r: { name: string }) => r.name === "Member",
    );
    for (const [what, r] of [
      [
        "reset",
        await s.api("POST", `/api/v1/users/${me.id}/reset-password`, {
          token: key,
          body: { new_password: "taken-Over-pass-42" },
        }),
      ],
      [
        "email",
        await s.api("PUT", `/api/v1/users/${me.id}`, { token: key, body: { email: "k@example.com" } }),
      ],
      [
        "assign",
        await s.api("POST", `/api/v1/roles/${memberRole.id}/assign`, {
          token: key,
          body: { user_id: me.id },
        }),
      ],
    ] as const) {
      expect([what, r.status, r.body.error?.code]).toEqual([what, 403, "ERR_PERMISSION_DENIED"]);
    }
    // The instance admin's password and address are unchanged, and their session too.
    const again = await s.api("POST", "/api/v1/auth/login", {
      body: { username: "admin", password: "taken-Over-pass-42" },
    });
    expect(again.status).toBe(401);
    const profile = await s.api("GET", "/api/v1/auth/profile", { token: admin });
    expect([profile.status, profile.body.email, profile.body.role]).toEqual([200, me.email, "Admin"]);
    await s.api("DELETE", `/api/v1/api-keys/${k.body.id}`, { token: admin });
  });

  it("a user:manage delegate revokes only keys of users no more powerful than itself", async () => {
    const role = await s.api("POST", "/api/v1/roles", {
      token: admin,
      body: {
        name: "KeyWarden",
        description: "",
        permissions: ["user:manage", "apikey:*", "file:*", "org:read", "settings:*"],
      },
    });
    expect(role.status).toBe(201);
    const warden = await createUser(s, admin, "warden", "KeyWarden");
    const adminKey = await create(admin, { name: "admin's", permissions: ["file:read"] });
    const plain = await createUser(s, admin, "plain-key-owner");
    const plainKey = await create(plain.token, { name: "plain's", permissions: ["file:read"] });
    const refused = await s.api("DELETE", `/api/v1/api-keys/${adminKey.body.id}`, { token: warden.token });
    expect([refused.status, refused.body.error?.code]).toEqual([403, "ERR_PERMISSION_DENIED"]);
    expect(
      (await s.api("GET", "/api/v1/auth/profile", { token: { apiKey: adminKey.body.key } })).status,
    ).toBe(200);
    const allowed = await s.api("DELETE", `/api/v1/api-keys/${plainKey.body.id}`, { token: warden.token });
    expect(allowed.status).toBe(200);
    expect(
      (await s.api("GET", "/api/v1/auth/profile", { token: { apiKey: plainKey.body.key } })).status,
    ).toBe(401);
    await s.api("DELETE", `/api/v1/api-keys/${adminKey.body.id}`, { token: admin });
  });

  it("an unknown key answers 401", async () => {
    const r = await s.api("GET", "/api/v1/auth/profile", { token: { apiKey: "attic_not-a-real-key" } });
    expect(r.status).toBe(401);
  });
});
