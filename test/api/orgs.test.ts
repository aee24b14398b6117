import { mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createUser, GOOD_PASSWORD, register, type Session } from "../helpers/accounts.ts";
import { mkdir, upload } from "../helpers/files.ts";
import { startServer, type TestServer } from "../helpers/server.ts";

describe("organizations", () => {
  let s: TestServer;
  let admin: string;
  let adminOrg: string;
  let other: Session;

  beforeAll(async () => {
    s = await startServer({ auth: { registration_enabled: true } });
    admin = await s.login();
    adminOrg = (await s.api("GET", "/api/v1/auth/profile", { token: admin })).body.organization_id;
    other = await register(s, "orgowner", { organization_name: "Owner Co" });
  });
  afterAll(() => s.close());

  it("lists all for the instance admin, only their own for others", async () => {
    const all = await s.api("GET", "/api/v1/organizations", { token: admin });
    expect(all.status).toBe(200);
    expect(all.body.organizations.map((o: { name: string }) => o.name)).toEqual(
      expect.arrayContaining(["Default", "Owner Co"]),
    );
    const own = await s.api("GET", "/api/v1/organizations", { token: other.token });
    expect(own.body).toEqual({ organizations: [expect.objectContaining({ id: other.orgId })], total: 1 });
  });

  it("creates organizations (instance admin only) with built-in roles and an optional first Admin", async () => {
    const denied = await s.api("POST", "/api/v1/organizations", {
      token: other.token,
      body: { name: "Nope" },
    });
    expect(denied.status).toBe(403);
    const bad = await s.api("POST", "/api/v1/organizations", { token: admin, body: { name: "" } });
    expect(bad.status).toBe(400);
    const r = await s.api("POST", "/api/v1/organizations", {
      token: admin,
      body: {
        name: "Family",
        admin: { username: "famadmin", email: "fam@example.com", password: GOOD_PASSWORD },
      },
    });
    expect(r.status).toBe(201);
    expect(r.body).toMatchObject({ name: "Family", user_count: 1 });
    const fam = await s.login("famadmin", GOOD_PASSWORD);
    const roles = await s.api("GET", "/api/v1/roles", { token: fam });
    expect(roles.body.roles.map((x: { name: string }) => x.name).sort()).toEqual(["Admin", "Member"]);
    const profile = await s.api("GET", "/api/v1/auth/profile", { token: fam });
    expect(profile.body).toMatchObject({ organization_id: r.body.id, role: "Admin" });
    const weakAdmin = await s.api("POST", "/api/v1/organizations", {
      token: admin,
      body: { name: "Weak", admin: { username: "weakadm", email: "w@example.com", password: "password123" } },
    });
    expect(weakAdmin.status).toBe(400);
    const names = (await s.api("GET", "/api/v1/organizations", { token: admin })).body.organizations.map(
      (o: { name: string }) => o.name,
    );
    expect(names).not.toContain("Weak");
  });

  it("gets and renames its own organization; members may read but not rename", async () => {
    const got = await s.api("GET", `/api/v1/organizations/${other.orgId}`, { token: other.token });
    expect(got.body).toMatchObject({ id: other.orgId, name: "Owner Co" });
    const put = await s.api("PUT", `/api/v1/organizations/${other.orgId}`, {
      token: other.token,
      body: { name: "Owner Company" },
    });
    expect(put.status).toBe(200);
    expect(put.body.name).toBe("Owner Company");
    const m = await createUser(s, other.token, "orgmember");
    expect((await s.api("GET", `/api/v1/organizations/${other.orgId}`, { token: m.token })).status).toBe(200);
    const rename = await s.api("PUT", `/api/v1/organizations/${other.orgId}`, {
      token: m.token,
      body: { name: "Mine now" },
    });
    expect(rename.status).toBe(403);
  });

  it("another organization answers 404 to everyone but the instance admin", async () => {
    expect((await s.api("GET", `/api/v1/organizations/${adminOrg}`, { token: other.token })).status).toBe(
      404,
    );
    const put = await s.api("PUT", `/api/v1/organizations/${adminOrg}`, {
      token: other.token,
      body: { name: "x" },
    });
    expect(put.status).toBe(404);
    expect((await s.api("DELETE", `/api/v1/organizations/${adminOrg}`, { token: other.token })).status).toBe(
      404,
    );
    expect((await s.api("GET", `/api/v1/organizations/${other.orgId}`, { token: admin })).status).toBe(200);
    expect((await s.api("GET", "/api/v1/organizations/nope", { token: admin })).status).toBe(400);
  });

  it("deletes organizations as the instance admin, never its own; their users and watchers stop", async () => {
    const victim = await register(s, "doomed", { organization_name: "Doomed" });
    // Only an instance admin mounts host folders, and one acts in their own organization: make the
    // doomed organization's Admin one (no API flags another organization's user).
    const db = new Database(join(s.dataDir, "attic.db"));
    db.prepare("UPDATE users SET is_instance_admin = 1 WHERE id = ?").run(victim.userId);
    db.close();
    const hostDir = mkdtempSync(join(tmpdir(), "attic-org-watch-"));
    writeFileSync(join(hostDir, "a.txt"), "hello");
    const folder = await s.api("POST", "/api/v1/watched-folders", {
      token: victim.token,
      body: { name: "Shared", path: hostDir },
    });
    expect(folder.status).toBe(201);
    const watched = async () => (await s.api("GET", "/health")).body.details?.watched_folders?.folders;
    expect(await watched()).toBe(1);
    // Not even an instance admin deletes their own organization.
    expect(
      (await s.api("DELETE", `/api/v1/organizations/${victim.orgId}`, { token: victim.token })).status,
    ).toBe(409);
    expect((await s.api("DELETE", `/api/v1/organizations/${adminOrg}`, { token: admin })).status).toBe(409);
    // Its files, in the tree and in the trash: their bytes go with it.
    const blobs = () => readdirSync(join(s.dataDir, "blobs"), { recursive: true }).map(String);
    const docs = await mkdir(s, victim.token, "Docs");
    const kept = await upload(s, victim.token, "kept.txt", "only the doomed organization has these bytes", {
      parentId: docs.id,
    });
    const trashed = await upload(s, victim.token, "gone.txt", "and these, in its trash");
    expect((await s.api("DELETE", `/api/v1/files/${trashed.body.id}`, { token: victim.token })).status).toBe(
      200,
    );
    const hashes = [kept.body.hash, trashed.body.hash] as string[];
    for (const h of hashes) expect(blobs().some((b) => b.endsWith(h))).toBe(true);
    const del = await s.api("DELETE", `/api/v1/organizations/${victim.orgId}`, { token: admin });
    expect(del.status).toBe(200);
    for (const h of hashes) expect(blobs().some((b) => b.endsWith(h))).toBe(false);
    expect(del.body).toEqual({ success: true });
    expect((await s.api("GET", `/api/v1/organizations/${victim.orgId}`, { token: admin })).status).toBe(404);
    expect((await s.api("GET", "/api/v1/auth/profile", { token: victim.token })).status).toBe(401);
    expect(await watched()).toBe(0);
    rmSync(hostDir, { recursive: true, force: true });
  });
});
