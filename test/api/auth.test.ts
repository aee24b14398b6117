import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { claimsOf, GOOD_PASSWORD, register } from "../helpers/accounts.ts";
import { ADMIN_PASSWORD, startServer, type TestServer } from "../helpers/server.ts";

describe("auth: register, login, refresh, logout, password, profile", () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startServer({ auth: { registration_enabled: true } });
  });
  afterAll(() => s.close());

  it("registers with docs/api.md's TokenPair shape and a personal organization named after the user", async () => {
    const r = await s.api("POST", "/api/v1/auth/register", {
      body: { username: "alice", email: "alice@example.com", password: GOOD_PASSWORD },
    });
    expect(r.status).toBe(201);
    expect(r.body).toEqual({
      access_token: expect.any(String),
      refresh_token: expect.any(String),
      expires_in: 900,
      user: {
        id: expect.any(String),
        username: "alice",
        email: "alice@example.com",
        organization_id: expect.any(String),
        is_active: true,
        created_at: expect.any(String),
      },
    });
    expect(r.text).not.toContain(GOOD_PASSWORD);
    const claims = claimsOf(r.body.access_token);
    expect(claims).toMatchObject({
      sub: r.body.user.id,
      username: "alice",
      role: "Admin",
      permissions: ["*:*"],
    });
    const org = await s.api("GET", `/api/v1/organizations/${r.body.user.organization_id}`, {
      token: r.body.access_token,
    });
    expect(org.status).toBe(200);
    expect(org.body).toMatchObject({ name: "alice", user_count: 1 });
    const roles = await s.api("GET", "/api/v1/roles", { token: r.body.access_token });
    expect(roles.body.roles.map((x: { name: string }) => x.name).sort()).toEqual(["Admin", "Member"]);
  });

  it("creates the named organization with the user as its Admin", async () => {
    const bob = await register(s, "bob", { organization_name: "Bob's Band" });
    const org = await s.api("GET", `/api/v1/organizations/${bob.orgId}`, { token: bob.token });
    expect(org.body.name).toBe("Bob's Band");
    const profile = await s.api("GET", "/api/v1/auth/profile", { token: bob.token });
    expect(profile.body).toMatchObject({ username: "bob", role: "Admin", organization_id: bob.orgId });
  });

  it("refuses taken usernames and emails (case-insensitive) with 409", async () => {
    await register(s, "carol");
    const sameName = await s.api("POST", "/api/v1/auth/register", {
      body: { username: "CAROL", email: "other@example.com", password: GOOD_PASSWORD },
    });
    expect(sameName.status).toBe(409);
    expect(sameName.body.error.code).toBe("ERR_CONFLICT");
    const sameEmail = await s.api("POST", "/api/v1/auth/register", {
      body: { username: "carol2", email: "Carol@Example.com", password: GOOD_PASSWORD },
    });
    expect(sameEmail.status).toBe(409);
  });

  it("two concurrent registrations of one name: one 201, one 409, no orphan organization", async () => {
    const body = (i: number) => ({
      username: "racer",
      email: `racer${i}@example.com`,
      password: GOOD_PASSWORD,
    });
    const results = await Promise.all(
      [0, 1, 2].map((i) => s.api("POST", "/api/v1/auth/register", { body: body(i) })),
    );
    expect(results.map((r) => r.status).sort()).toEqual([201, 409, 409]);
    const admin = await s.login();
    const orgs = await s.api("GET", "/api/v1/organizations", { token: admin });
    // Exactly one survives: the winner's (named "racer", or "racer-xxxx" when a loser held that name a moment).
    expect(
      orgs.body.organizations.filter((o: { name: string }) => /^racer(-[a-z0-9]+)?$/.test(o.name)),
    ).toHaveLength(1);
  });

  it("rejects weak passwords with 400 ERR_WEAK_PASSWORD", async () => {
    for (const password of ["password123", "12345678901", "aaaaaaaaaa", "short-1A", "dave-is-great-2024"]) {
      const r = await s.api("POST", "/api/v1/auth/register", {
        body: { username: "dave", email: "dave@example.com", password },
      });
      expect(r.status, password).toBe(400);
      expect(r.body.error.code, password).toBe("ERR_WEAK_PASSWORD");
    }
  });

  it("rejects bad usernames, emails and bodies with 400 ERR_VALIDATION", async () => {
    const bodies = [
      { username: "ab", email: "a@example.com", password: GOOD_PASSWORD },
      { username: "x".repeat(33), email: "a@example.com", password: GOOD_PASSWORD },
      { username: "bad name", email: "a@example.com", password: GOOD_PASSWORD },
      { username: "ok_name", email: "not-an-email", password: GOOD_PASSWORD },
      { username: "ok_name", email: "a@example.com" },
      { username: 5, email: "a@example.com", password: GOOD_PASSWORD },
      { username: "ok_name", email: "a@example.com", password: GOOD_PASSWORD, organization_name: "" },
    ];
    for (const body of bodies) {
      const r = await s.api("POST", "/api/v1/auth/register", { body });
      expect(r.status, JSON.stringify(body)).toBe(400);
      expect(r.body.error.code).toBe("ERR_VALIDATION");
    }
  });

  it("answers an unknown user and a wrong password with the same 401 body", async () => {
    const unknown = await s.api("POST", "/api/v1/auth/login", {
      body: { username: "nobody", password: "x" },
    });
    const wrong = await s.api("POST", "/api/v1/auth/login", { body: { username: "admin", password: "x" } });
    expect(unknown.status).toBe(401);
    expect(wrong.status).toBe(401);
    expect(unknown.body).toEqual(wrong.body);
    expect(wrong.body.error.code).toBe("ERR_INVALID_CREDENTIALS");
  });

  it("logs in, refreshes (single use) and logs out", async () => {
    const login = await s.api("POST", "/api/v1/auth/login", {
      body: { username: "admin", password: ADMIN_PASSWORD },
    });
    expect(login.status).toBe(200);
    expect(login.body.user.username).toBe("admin");
    const next = await s.api("POST", "/api/v1/auth/refresh", {
      body: { refresh_token: login.body.refresh_token },
    });
    expect(next.status).toBe(200);
    expect(next.body).toMatchObject({ expires_in: 900, user: { username: "admin" } });
    const again = await s.api("POST", "/api/v1/auth/refresh", {
      body: { refresh_token: login.body.refresh_token },
    });
    expect(again.status).toBe(401);
    const out = await s.api("POST", "/api/v1/auth/logout", {
      token: next.body.access_token,
      body: { refresh_token: next.body.refresh_token },
    });
    expect(out.status).toBe(200);
    expect(out.body).toEqual({ success: true });
    const afterLogout = await s.api("POST", "/api/v1/auth/refresh", {
      body: { refresh_token: next.body.refresh_token },
    });
    expect(afterLogout.status).toBe(401);
  });

  it("logout-all revokes every refresh token of the user", async () => {
    const a = await register(s, "erin");
    const b = await s.api("POST", "/api/v1/auth/login", {
      body: { username: "erin", password: GOOD_PASSWORD },
    });
    const r = await s.api("POST", "/api/v1/auth/logout-all", { token: a.token });
    expect(r.body).toEqual({ success: true });
    for (const refresh_token of [a.refresh, b.body.refresh_token]) {
      const x = await s.api("POST", "/api/v1/auth/refresh", { body: { refresh_token } });
      expect(x.status).toBe(401);
    }
  });

  it("logout-all also ends a refresh that was under way, and a logout the pair it was refreshing", async () => {
    await register(s, "erin-racing");
    const refresh = (refresh_token: string) =>
      s.api("POST", "/api/v1/auth/refresh", { body: { refresh_token } });
    const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));
    // Each round starts logout-all a little later into the refresh, to land in its signing too.
    const survivors: number[] = [];
    for (let round = 0; round < 16; round++) {
      const pair = (
        await s.api("POST", "/api/v1/auth/login", {
          body: { username: "erin-racing", password: GOOD_PASSWORD },
        })
      ).body;
      const [r, out] = await Promise.all([
        refresh(pair.refresh_token),
        pause(round % 8).then(() => s.api("POST", "/api/v1/auth/logout-all", { token: pair.access_token })),
      ]);
      expect(out.status).toBe(200);
      if (r.status === 200 && (await refresh(r.body.refresh_token)).status === 200) survivors.push(round);
    }
    for (let round = 0; round < 16; round++) {
      const pair = (
        await s.api("POST", "/api/v1/auth/login", {
          body: { username: "erin-racing", password: GOOD_PASSWORD },
        })
      ).body;
      const [r] = await Promise.all([
        refresh(pair.refresh_token),
        pause(round % 8).then(() =>
          s.api("POST", "/api/v1/auth/logout", {
            token: pair.access_token,
            body: { refresh_token: pair.refresh_token },
          }),
        ),
      ]);
      if (r.status === 200 && (await refresh(r.body.refresh_token)).status === 200)
        survivors.push(100 + round);
    }
    expect(survivors).toEqual([]);
  });

  it("change-password checks the current one, revokes sessions, and the next login works at once", async () => {
    const f = await register(s, "frank");
    const wrong = await s.api("POST", "/api/v1/auth/change-password", {
      token: f.token,
      body: { current_password: "not-my-password-1", new_password: "another-Strong-pass-7" },
    });
    expect(wrong.status).toBe(401);
    const weak = await s.api("POST", "/api/v1/auth/change-password", {
      token: f.token,
      body: { current_password: GOOD_PASSWORD, new_password: "password123" },
    });
    expect(weak.body.error.code).toBe("ERR_WEAK_PASSWORD");
    const ok = await s.api("POST", "/api/v1/auth/change-password", {
      token: f.token,
      body: { current_password: GOOD_PASSWORD, new_password: "another-Strong-pass-7" },
    });
    expect(ok.status).toBe(200);
    expect(ok.body).toEqual({ success: true });
    expect((await s.api("GET", "/api/v1/auth/profile", { token: f.token })).status).toBe(401);
    const refresh = await s.api("POST", "/api/v1/auth/refresh", { body: { refresh_token: f.refresh } });
    expect(refresh.status).toBe(401);
    const old = await s.api("POST", "/api/v1/auth/login", {
      body: { username: "frank", password: GOOD_PASSWORD },
    });
    expect(old.status).toBe(401);
    // Issued in the same second as the change: must still work.
    const fresh = await s.login("frank", "another-Strong-pass-7");
    expect((await s.api("GET", "/api/v1/auth/profile", { token: fresh })).status).toBe(200);
  });

  it("PUT /auth/password accepts old_password or current_password", async () => {
    await register(s, "grace");
    let token = await s.login("grace", GOOD_PASSWORD);
    const viaOld = await s.api("PUT", "/api/v1/auth/password", {
      token,
      body: { old_password: GOOD_PASSWORD, new_password: "second-Strong-pass-8" },
    });
    expect(viaOld.status).toBe(200);
    token = await s.login("grace", "second-Strong-pass-8");
    const viaCurrent = await s.api("PUT", "/api/v1/auth/password", {
      token,
      body: { current_password: "second-Strong-pass-8", new_password: "third-Strong-pass-9" },
    });
    expect(viaCurrent.status).toBe(200);
    token = await s.login("grace", "third-Strong-pass-9");
    const neither = await s.api("PUT", "/api/v1/auth/password", {
      token,
      body: { new_password: "x-Strong-pass-10" },
    });
    expect(neither.status).toBe(400);
  });

  it("reads and updates the profile; taken names answer 409, bad email 400", async () => {
    const h = await register(s, "heidi");
    const got = await s.api("GET", "/api/v1/auth/profile", { token: h.token });
    expect(got.body).toMatchObject({
      id: h.userId,
      username: "heidi",
      email: "heidi@example.com",
      display_name: null,
    });
    expect(got.text).not.toContain("password_hash");
    const put = await s.api("PUT", "/api/v1/auth/profile", {
      token: h.token,
      body: { display_name: "Heidi H.", email: "heidi@new.example", username: "heidi2" },
    });
    expect(put.status).toBe(200);
    expect(put.body).toMatchObject({
      display_name: "Heidi H.",
      email: "heidi@new.example",
      username: "heidi2",
    });
    const taken = await s.api("PUT", "/api/v1/auth/profile", { token: h.token, body: { username: "alice" } });
    expect(taken.status).toBe(409);
    const bad = await s.api("PUT", "/api/v1/auth/profile", { token: h.token, body: { email: "nope" } });
    expect(bad.status).toBe(400);
    // The shown name obeys the same rule as when an admin sets it: no control, bidi or zero-width characters.
    for (const display_name of ["evil\u001b[31m\nname", "nul\u0000", "\u202enimdA", "Ad\u200bmin"]) {
      const r = await s.api("PUT", "/api/v1/auth/profile", { token: h.token, body: { display_name } });
      expect([JSON.stringify(display_name), r.status, r.body.error?.code]).toEqual([
        JSON.stringify(display_name),
        400,
        "ERR_VALIDATION",
      ]);
      const byAdmin = await s.api("PUT", `/api/v1/users/${h.userId}`, {
        token: h.token,
        body: { display_name },
      });
      expect([JSON.stringify(display_name), byAdmin.status]).toEqual([JSON.stringify(display_name), 400]);
    }
    expect((await s.api("GET", "/api/v1/auth/profile", { token: h.token })).body.display_name).toBe(
      "Heidi H.",
    );
    expect(await s.login("heidi2", GOOD_PASSWORD)).toEqual(expect.any(String));
  });

  it("counts register attempts in attic_auth_attempts_total", async () => {
    const m = await s.api("GET", "/metrics");
    expect(m.text).toMatch(/attic_auth_attempts_total\{method="register",status="success"\} [1-9]/);
    expect(m.text).toMatch(/attic_auth_attempts_total\{method="register",status="failure"\} [1-9]/);
    expect(m.text).toMatch(/attic_active_users [1-9]/);
  });
});

describe("auth: registration disabled (the default)", () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startServer();
  });
  afterAll(() => s.close());

  it("answers 403 ERR_REGISTRATION_DISABLED", async () => {
    const r = await s.api("POST", "/api/v1/auth/register", {
      body: { username: "ivan", email: "ivan@example.com", password: GOOD_PASSWORD },
    });
    expect(r.status).toBe(403);
    expect(r.body.error.code).toBe("ERR_REGISTRATION_DISABLED");
  });
});
