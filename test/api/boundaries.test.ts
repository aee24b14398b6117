import { mkdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createUser, GOOD_PASSWORD, register } from "../helpers/accounts.ts";
import { upload } from "../helpers/files.ts";
import { ADMIN_PASSWORD, startServer, type TestServer } from "../helpers/server.ts";
import { hostTree } from "./watched.helpers.ts";

/** The attacker's findings of the hardening issue: powers of the machine and delegated user management. */
describe("trust boundaries", () => {
  let s: TestServer;
  let admin: string;
  let allowed: string;
  let outside: string;
  const cleanup: string[] = [];

  beforeAll(async () => {
    allowed = hostTree({ "Photos/a.txt": "a" });
    outside = hostTree({ "secret.txt": "s" });
    cleanup.push(allowed, outside);
    s = await startServer({
      watch: { allowed_roots: [allowed], debounce: 0.2 },
      auth: { registration_enabled: true },
    });
    admin = await s.login();
  });
  afterAll(async () => {
    await s.close();
    for (const d of cleanup) rmSync(d, { recursive: true, force: true });
  });

  const mount = (token: string, path: string, name = "M") =>
    s.api("POST", "/api/v1/watched-folders", { token, body: { name, path } });

  it("lets no organization admin, registered or created, mount a host path", async () => {
    const stranger = await register(s, "stranger-one", { organization_name: "Strangers" });
    for (const path of ["/home", "/var/log", "/run", "/opt", "/srv", allowed]) {
      const r = await mount(stranger.token, path);
      expect([path, r.status, r.body.error?.code]).toEqual([path, 403, "ERR_PERMISSION_DENIED"]);
    }
    const orgAdmin = await createUser(s, admin, "org-admin", "Admin");
    expect((await mount(orgAdmin.token, allowed)).status).toBe(403);
    const sugg = await s.api("GET", "/api/v1/filesystem/path-suggestions?prefix=/", {
      token: orgAdmin.token,
    });
    expect(sugg.status).toBe(403);
  });

  it("keeps watched folders and suggestions inside watch.allowed_roots, as written and resolved", async () => {
    const out = await mount(admin, outside, "Out");
    expect([out.status, out.body.error?.code]).toEqual([403, "ERR_FORBIDDEN_PATH"]);
    // A symlink inside the root pointing outside is judged by where it leads.
    const { symlinkSync } = await import("node:fs");
    symlinkSync(outside, join(allowed, "escape"));
    expect((await mount(admin, join(allowed, "escape"), "Esc")).status).toBe(403);
    const ok = await mount(admin, join(allowed, "Photos"), "Photos");
    expect(ok.status).toBe(201);
    // Suggestions show only the way to the allowed root and what lies inside it.
    const top = await s.api("GET", `/api/v1/filesystem/path-suggestions?prefix=${encodeURIComponent("/")}`, {
      token: admin,
    });
    expect(top.status).toBe(200);
    for (const p of top.body.suggestions as string[]) expect(allowed.startsWith(p), p).toBe(true);
    const inside = await s.api(
      "GET",
      `/api/v1/filesystem/path-suggestions?prefix=${encodeURIComponent(`${allowed}/`)}`,
      { token: admin },
    );
    expect(inside.body.suggestions).toEqual([join(allowed, "Photos")]);
    const beyond = await s.api(
      "GET",
      `/api/v1/filesystem/path-suggestions?prefix=${encodeURIComponent(`${outside}/`)}`,
      { token: admin },
    );
    expect(beyond.status).toBe(403);
  });

  it("lets a user:manage delegate act only on users no more powerful than itself", async () => {
    const role = await s.api("POST", "/api/v1/roles", {
      token: admin,
      body: { name: "UserManager", description: "manages users", permissions: ["user:manage"] },
    });
    expect(role.status).toBe(201);
    const delegate = await createUser(s, admin, "delegate", "UserManager");
    const member = await createUser(s, admin, "plain-member-b");
    const adminId = (await s.api("GET", "/api/v1/auth/profile", { token: admin })).body.id;
    const reset = (token: string, id: string) =>
      s.api("POST", `/api/v1/users/${id}/reset-password`, {
        token,
        body: { new_password: "another-Strong-pass-77" },
      });
    for (const [what, r] of [
      ["reset the instance admin", await reset(delegate.token, adminId)],
      [
        "deactivate the instance admin",
        await s.api("POST", `/api/v1/users/${adminId}/deactivate`, { token: delegate.token }),
      ],
      [
        "change the instance admin's e-mail",
        await s.api("PUT", `/api/v1/users/${adminId}`, {
          token: delegate.token,
          body: { email: "mine@example.com" },
        }),
      ],
      ["reset a Member (file:* is not the delegate's)", await reset(delegate.token, member.userId)],
    ] as const) {
      expect([what, r.status, r.body.error?.code]).toEqual([what, 403, "ERR_PERMISSION_DENIED"]);
    }
    // The instance admin can still sign in with the old password.
    const still = await s.api("POST", "/api/v1/auth/login", {
      body: { username: "admin", password: ADMIN_PASSWORD },
    });
    expect(still.status).toBe(200);
    // An organization Admin who is not an instance admin cannot touch the instance admin either.
    const orgAdmin = await createUser(s, admin, "org-admin-2", "Admin");
    expect((await reset(orgAdmin.token, adminId)).status).toBe(403);
    expect((await reset(orgAdmin.token, member.userId)).status).toBe(200);
    // Only an instance admin grants the flag; the last one cannot drop it.
    const grant = (token: string, id: string, v: boolean) =>
      s.api("PUT", `/api/v1/users/${id}`, { token, body: { is_instance_admin: v } });
    expect((await grant(orgAdmin.token, orgAdmin.userId, true)).status).toBe(403);
    expect((await grant(admin, adminId, false)).status).toBe(409);
    const granted = await grant(admin, orgAdmin.userId, true);
    expect([granted.status, granted.body.is_instance_admin]).toEqual([200, true]);
  });

  it("refuses settings and playback writes to a file:read API key", async () => {
    const key = await s.api("POST", "/api/v1/api-keys", {
      token: admin,
      body: { name: "reader", permissions: ["file:read", "settings:read"] },
    });
    expect(key.status).toBe(201);
    const k = { apiKey: key.body.key as string };
    expect((await s.api("GET", "/api/v1/settings/user", { token: k })).status).toBe(200);
    const put = await s.api("PUT", "/api/v1/settings/user", { token: k, body: { theme: "dark" } });
    expect([put.status, put.body.error?.code]).toEqual([403, "ERR_PERMISSION_DENIED"]);
    const f = await upload(s, admin, "clip.mp4", "not really a video");
    const pos = await s.api("PUT", `/api/v1/playback-positions/${f.body.id}`, {
      token: k,
      body: { position_seconds: 10, duration_seconds: 100 },
    });
    expect([pos.status, pos.body.error?.code]).toEqual([403, "ERR_PERMISSION_DENIED"]);
    // A session of a Member keeps writing both.
    const m = await createUser(s, admin, "settings-member");
    expect(
      (await s.api("PUT", "/api/v1/settings/user", { token: m.token, body: { theme: "dark" } })).status,
    ).toBe(200);
  });

  it("never tells one organization another's host path in an overlap error", async () => {
    const other = await register(s, "other-instance-admin", { organization_name: "Neighbours" });
    // No API makes an instance admin of another organization's user (an instance admin flags users of
    // their own organization), so the test seeds the flag directly.
    const db = new Database(join(s.dataDir, "attic.db"));
    db.prepare("UPDATE users SET is_instance_admin = 1 WHERE id = ?").run(other.userId);
    db.close();
    const login = await s.api("POST", "/api/v1/auth/login", {
      body: { username: "other-instance-admin", password: GOOD_PASSWORD },
    });
    const sub = join(allowed, "Photos", "inner");
    mkdirSync(sub, { recursive: true });
    const r = await mount(login.body.access_token, sub, "Inner");
    expect(r.status).toBe(403);
    expect(r.text).not.toContain(`${allowed}/Photos"`);
    expect(r.body.error.message).toContain("another organization");
  });
});
