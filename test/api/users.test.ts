import { spawn } from "node:child_process";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { claimsOf, createUser, GOOD_PASSWORD, register, type Session } from "../helpers/accounts.ts";
import { startServer, type TestServer } from "../helpers/server.ts";
import { connectJson } from "../rpc/clients.ts";

describe("users (org admin)", () => {
  let s: TestServer;
  let admin: string;
  let member: Session;

  beforeAll(async () => {
    s = await startServer({ auth: { registration_enabled: true } });
    admin = await s.login();
    member = await createUser(s, admin, "plainmember");
  });
  afterAll(() => s.close());

  it("creates a user with the default Member role; never returns the password", async () => {
    const r = await s.api("POST", "/api/v1/users", {
      token: admin,
      body: { username: "newbie", email: "newbie@example.com", password: GOOD_PASSWORD },
    });
    expect(r.status).toBe(201);
    expect(r.body).toMatchObject({ username: "newbie", role: "Member", is_active: true, display_name: null });
    expect(r.text).not.toMatch(/password_hash|correct-Horse/);
    const login = await s.login("newbie", GOOD_PASSWORD);
    expect(claimsOf(login)).toMatchObject({ role: "Member", organization_id: r.body.organization_id });
  });

  it("creates a user with a role by name or id; unknown role 404; bad input 400; taken 409", async () => {
    const roles = (await s.api("GET", "/api/v1/roles", { token: admin })).body.roles;
    const adminRole = roles.find((x: { name: string }) => x.name === "Admin");
    const byId = await s.api("POST", "/api/v1/users", {
      token: admin,
      body: {
        username: "second_admin",
        email: "a2@example.com",
        password: GOOD_PASSWORD,
        role: adminRole.id,
      },
    });
    expect(byId.body.role).toBe("Admin");
    const byName = await s.api("POST", "/api/v1/users", {
      token: admin,
      body: { username: "another", email: "an@example.com", password: GOOD_PASSWORD, role: "admin" },
    });
    expect(byName.body.role).toBe("Admin");
    const unknown = await s.api("POST", "/api/v1/users", {
      token: admin,
      body: { username: "x_user", email: "x@example.com", password: GOOD_PASSWORD, role: "Wizard" },
    });
    expect(unknown.status).toBe(404);
    const weak = await s.api("POST", "/api/v1/users", {
      token: admin,
      body: { username: "x_user", email: "x@example.com", password: "password123" },
    });
    expect(weak.body.error.code).toBe("ERR_WEAK_PASSWORD");
    const badEmail = await s.api("POST", "/api/v1/users", {
      token: admin,
      body: { username: "x_user", email: "x@", password: GOOD_PASSWORD },
    });
    expect(badEmail.status).toBe(400);
    const taken = await s.api("POST", "/api/v1/users", {
      token: admin,
      body: { username: "NEWBIE", email: "other@example.com", password: GOOD_PASSWORD },
    });
    expect(taken.status).toBe(409);
  });

  it("lists with limit/offset/total and gets one", async () => {
    const page = await s.api("GET", "/api/v1/users?limit=2&offset=1", { token: admin });
    expect(page.status).toBe(200);
    expect(page.body).toMatchObject({ limit: 2, offset: 1, total: expect.any(Number) });
    expect(page.body.users).toHaveLength(2);
    expect(page.body.total).toBeGreaterThanOrEqual(4);
    const one = await s.api("GET", `/api/v1/users/${member.userId}`, { token: admin });
    expect(one.body).toMatchObject({ id: member.userId, username: "plainmember" });
    for (const q of ["limit=0", "limit=-1", "offset=-1", "limit=abc", "limit=100000"]) {
      expect((await s.api("GET", `/api/v1/users?${q}`, { token: admin })).status, q).toBe(400);
    }
  });

  it("needs user:manage: members get 403", async () => {
    expect((await s.api("GET", "/api/v1/users", { token: member.token })).status).toBe(403);
    const create = await s.api("POST", "/api/v1/users", {
      token: member.token,
      body: { username: "sneaky", email: "s@example.com", password: GOOD_PASSWORD },
    });
    expect(create.status).toBe(403);
  });

  it("updates display name, email and role", async () => {
    const u = await createUser(s, admin, "changeling");
    const r = await s.api("PUT", `/api/v1/users/${u.userId}`, {
      token: admin,
      body: { display_name: "Change Ling", email: "cl@example.com", role: "Admin" },
    });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ display_name: "Change Ling", email: "cl@example.com", role: "Admin" });
    expect(r.body.roles).toHaveLength(1);
    const taken = await s.api("PUT", `/api/v1/users/${u.userId}`, {
      token: admin,
      body: { email: "newbie@example.com" },
    });
    expect(taken.status).toBe(409);
  });

  it("deactivation stops the user's tokens at once (DELETE and POST /deactivate)", async () => {
    for (const [method, suffix, name] of [
      ["DELETE", "", "leaver1"],
      ["POST", "/deactivate", "leaver2"],
    ] as const) {
      const u = await createUser(s, admin, name);
      expect((await s.api("GET", "/api/v1/auth/profile", { token: u.token })).status).toBe(200);
      const r = await s.api(method, `/api/v1/users/${u.userId}${suffix}`, { token: admin });
      expect(r.status).toBe(200);
      expect(r.body).toEqual(
        method === "DELETE" ? { success: true } : expect.objectContaining({ is_active: false }),
      );
      expect((await s.api("GET", "/api/v1/auth/profile", { token: u.token })).status).toBe(401);
      expect(
        (await s.api("POST", "/api/v1/auth/refresh", { body: { refresh_token: u.refresh } })).status,
      ).toBe(401);
      const login = await s.api("POST", "/api/v1/auth/login", {
        body: { username: name, password: GOOD_PASSWORD },
      });
      expect(login.status).toBe(403);
    }
  });

  it("never leaves an organization without an active Admin", async () => {
    const solo = await register(s, "soloadmin");
    const demote = await s.api("PUT", `/api/v1/users/${solo.userId}`, {
      token: solo.token,
      body: { role: "Member" },
    });
    expect(demote.status).toBe(409);
    const second = await createUser(s, solo.token, "soloadmin2", "Admin");
    const demoteNow = await s.api("PUT", `/api/v1/users/${solo.userId}`, {
      token: second.token,
      body: { role: "Member" },
    });
    expect(demoteNow.status).toBe(200);
    const last = await s.api("POST", `/api/v1/users/${second.userId}/deactivate`, { token: second.token });
    expect(last.status).toBe(400);
  });

  it("an admin cannot deactivate themself", async () => {
    const me = (await s.api("GET", "/api/v1/auth/profile", { token: admin })).body;
    expect((await s.api("DELETE", `/api/v1/users/${me.id}`, { token: admin })).status).toBe(400);
  });

  it("resets a password: old sessions end, the new password works and must be changed", async () => {
    const u = await createUser(s, admin, "forgetful");
    const r = await s.api("POST", `/api/v1/users/${u.userId}/reset-password`, {
      token: admin,
      body: { new_password: "reset-Strong-pass-11" },
    });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ success: true });
    expect((await s.api("GET", "/api/v1/auth/profile", { token: u.token })).status).toBe(401);
    const fresh = await s.login("forgetful", "reset-Strong-pass-11");
    const profile = await s.api("GET", "/api/v1/auth/profile", { token: fresh });
    expect(profile.body.must_change_password).toBe(true);
    // Until the password is changed, only profile, change-password and logout answer.
    for (const [method, path] of [
      ["GET", "/api/v1/files"],
      ["GET", "/api/v1/search?q=x"],
      ["POST", "/api/v1/directories"],
      ["GET", "/api/v1/settings/user"],
      ["POST", "/api/v1/api-keys"],
    ] as const) {
      const r = await s.api(method, path, {
        token: fresh,
        body: method === "POST" ? { name: "x", permissions: ["file:read"] } : undefined,
      });
      expect([path, r.status, r.body.error?.code]).toEqual([path, 403, "ERR_PASSWORD_CHANGE_REQUIRED"]);
    }
    const rpc = await connectJson(s.url, "attic.v1.FileService/ListFiles", {}, fresh);
    expect([rpc.status, rpc.body.code]).toEqual([403, "permission_denied"]);
    const changed = await s.api("PUT", "/api/v1/auth/password", {
      token: fresh,
      body: { current_password: "reset-Strong-pass-11", new_password: "chosen-Strong-pass-12" },
    });
    expect(changed.status).toBe(200);
    const mine = await s.login("forgetful", "chosen-Strong-pass-12");
    expect((await s.api("GET", "/api/v1/files", { token: mine })).status).toBe(200);
    const weak = await s.api("POST", `/api/v1/users/${u.userId}/reset-password`, {
      token: admin,
      body: { new_password: "short" },
    });
    expect(weak.status).toBe(400);
  });

  it("another organization's users answer 404 on every route", async () => {
    const other = await register(s, "outsider");
    const id = member.userId;
    expect((await s.api("GET", `/api/v1/users/${id}`, { token: other.token })).status).toBe(404);
    expect(
      (await s.api("PUT", `/api/v1/users/${id}`, { token: other.token, body: { display_name: "x" } })).status,
    ).toBe(404);
    expect((await s.api("DELETE", `/api/v1/users/${id}`, { token: other.token })).status).toBe(404);
    const reset = await s.api("POST", `/api/v1/users/${id}/reset-password`, {
      token: other.token,
      body: { new_password: "hijack-Strong-pass-12" },
    });
    expect(reset.status).toBe(404);
    const list = await s.api("GET", "/api/v1/users", { token: other.token });
    expect(list.body.users.map((u: { username: string }) => u.username)).toEqual(["outsider"]);
    expect((await s.api("GET", "/api/v1/users/not-an-id", { token: admin })).status).toBe(400);
  });
});

describe("users: password hashing at one caller's request", () => {
  let s: TestServer;
  // The real cost (config defaults): each hash holds a libuv thread for a while.
  beforeAll(async () => {
    s = await startServer({
      auth: { registration_enabled: true, password_hash_memory_kib: 19456, password_hash_iterations: 2 },
    });
  });
  afterAll(() => s.close());

  /** Another process (a client of its own) sends `n` resets at once; prints a line per answer. */
  function burstOfResets(n: number, token: string, userId: string) {
    const script = `
      const url = process.env.URL + "/api/v1/users/" + process.env.TARGET + "/reset-password";
      const send = () => fetch(url, {
        method: "POST",
        headers: { authorization: "Bearer " + process.env.TOKEN, "content-type": "application/json" },
        body: JSON.stringify({ new_password: "another-Strong-pass-77" }),
      }).then((r) => r.text().then(() => console.log(r.status)));
      await Promise.all(Array.from({ length: Number(process.env.N) }, send));`;
    const child = spawn(process.execPath, ["--input-type=module", "-e", script], {
      env: { ...process.env, URL: s.url, TOKEN: token, TARGET: userId, N: String(n) },
      stdio: ["ignore", "pipe", "inherit"],
    });
    const statuses: string[] = [];
    let first!: () => void;
    const started = new Promise<void>((r) => {
      first = r;
    });
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
      statuses.push(...chunk.split("\n").filter(Boolean));
      first();
    });
    const done = new Promise<void>((r) => child.on("close", () => r()));
    return { statuses, started, done };
  }

  it("a burst of resets by one admin does not hold up another organization's sign-in", async () => {
    const admin = await s.login();
    const target = await createUser(s, admin, "reset-target");
    await register(s, "bystander");
    const n = 48;
    const burst = burstOfResets(n, admin, target.userId);
    // Once the first reset is answered (and a moment more), the others are all at the server.
    await burst.started;
    await new Promise((r) => setTimeout(r, 200));
    const login = await s.api("POST", "/api/v1/auth/login", {
      body: { username: "bystander", password: GOOD_PASSWORD },
    });
    const answeredBeforeLogin = burst.statuses.length;
    await burst.done;
    expect(login.status).toBe(200);
    expect(burst.statuses).toEqual(Array(n).fill("200"));
    // The admin's resets wait their turn among themselves, not in front of everyone else.
    expect(answeredBeforeLogin).toBeLessThan(n / 2);
  });

  it("a reset waiting its turn is checked again: a target promoted meanwhile is refused", async () => {
    const admin = await s.login();
    const role = await s.api("POST", "/api/v1/roles", {
      token: admin,
      body: {
        name: "Helpdesk",
        description: "",
        permissions: ["user:manage", "file:*", "org:read", "apikey:*", "settings:*"],
      },
    });
    expect(role.status).toBe(201);
    const helpdesk = await createUser(s, admin, "helpdesk", "Helpdesk");
    const filler = await createUser(s, admin, "filler");
    const victim = await createUser(s, admin, "soon-admin");
    const reset = (id: string) =>
      s.api("POST", `/api/v1/users/${id}/reset-password`, {
        token: helpdesk.token,
        body: { new_password: "helpdesk-Chosen-pass-5" },
      });
    // The helpdesk's own resets queue one at a time: the victim's waits behind the filler's.
    let answered = 0;
    const fillers = Array.from({ length: 8 }, () => reset(filler.userId).then(() => answered++));
    const pending = reset(victim.userId);
    while (answered === 0) await new Promise((r) => setTimeout(r, 5));
    const promote = await s.api("PUT", `/api/v1/users/${victim.userId}`, {
      token: admin,
      body: { role: "Admin" },
    });
    expect(promote.status).toBe(200);
    const late = await pending;
    await Promise.all(fillers);
    expect([late.status, late.body.error?.code]).toEqual([403, "ERR_PERMISSION_DENIED"]);
    // The new Admin's password is still their own.
    expect(
      (
        await s.api("POST", "/api/v1/auth/login", {
          body: { username: "soon-admin", password: GOOD_PASSWORD },
        })
      ).status,
    ).toBe(200);
  });
});
