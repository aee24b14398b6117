import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { claimsOf, createUser, GOOD_PASSWORD, register, type Session } from "../helpers/accounts.ts";
import { startServer, type TestServer } from "../helpers/server.ts";

describe("roles", () => {
  let s: TestServer;
  let admin: string;
  let member: Session;
  const roleByName = async (name: string) =>
    (await s.api("GET", "/api/v1/roles", { token: admin })).body.roles.find(
      (r: { name: string }) => r.name === name,
    );

  beforeAll(async () => {
    s = await startServer({ auth: { registration_enabled: true } });
    admin = await s.login();
    member = await createUser(s, admin, "rolemember");
  });
  afterAll(() => s.close());

  it("lists and gets roles for any member, with the built-ins", async () => {
    const list = await s.api("GET", "/api/v1/roles", { token: member.token });
    expect(list.status).toBe(200);
    const names = list.body.roles.map((r: { name: string }) => r.name);
    expect(names).toEqual(expect.arrayContaining(["Admin", "Member"]));
    const adminRole = list.body.roles.find((r: { name: string }) => r.name === "Admin");
    expect(adminRole).toMatchObject({
      permissions: ["*:*"],
      is_builtin: true,
      description: expect.any(String),
    });
    const one = await s.api("GET", `/api/v1/roles/${adminRole.id}`, { token: member.token });
    expect(one.body).toEqual(adminRole);
  });

  it("creates, updates and deletes a custom role as admin; members get 403", async () => {
    const body = { name: "Viewer", description: "reads files", permissions: ["file:read", "org:read"] };
    expect((await s.api("POST", "/api/v1/roles", { token: member.token, body })).status).toBe(403);
    const created = await s.api("POST", "/api/v1/roles", { token: admin, body });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ ...body, is_builtin: false, id: expect.any(String) });
    const dup = await s.api("POST", "/api/v1/roles", { token: admin, body: { ...body, name: "viewer" } });
    expect(dup.status).toBe(409);
    const put = await s.api("PUT", `/api/v1/roles/${created.body.id}`, {
      token: admin,
      body: { name: "Reader", permissions: ["file:read"] },
    });
    expect(put.status).toBe(200);
    expect(put.body).toMatchObject({
      name: "Reader",
      permissions: ["file:read"],
      description: "reads files",
    });
    expect(
      (await s.api("PUT", `/api/v1/roles/${created.body.id}`, { token: member.token, body: {} })).status,
    ).toBe(403);
    expect((await s.api("DELETE", `/api/v1/roles/${created.body.id}`, { token: member.token })).status).toBe(
      403,
    );
    const del = await s.api("DELETE", `/api/v1/roles/${created.body.id}`, { token: admin });
    expect(del.body).toEqual({ success: true });
    expect((await s.api("GET", `/api/v1/roles/${created.body.id}`, { token: admin })).status).toBe(404);
  });

  it("validates permissions and names with 400", async () => {
    for (const body of [
      { name: "X", permissions: ["files:read"] },
      { name: "X", permissions: ["file"] },
      { name: "X", permissions: ["file:fly"] },
      { name: "X", permissions: "file:read" },
      { name: "", permissions: [] },
      { name: "a\u0000b", permissions: [] },
    ]) {
      const r = await s.api("POST", "/api/v1/roles", { token: admin, body });
      expect(r.status, JSON.stringify(body)).toBe(400);
      expect(r.body.error.code).toBe("ERR_VALIDATION");
    }
  });

  it("protects built-in roles: no delete, no rename, Admin's permissions fixed", async () => {
    const adminRole = await roleByName("Admin");
    const memberRole = await roleByName("Member");
    expect((await s.api("DELETE", `/api/v1/roles/${adminRole.id}`, { token: admin })).status).toBe(403);
    expect((await s.api("DELETE", `/api/v1/roles/${memberRole.id}`, { token: admin })).status).toBe(403);
    const rename = await s.api("PUT", `/api/v1/roles/${memberRole.id}`, {
      token: admin,
      body: { name: "Users" },
    });
    expect(rename.status).toBe(403);
    const narrow = await s.api("PUT", `/api/v1/roles/${adminRole.id}`, {
      token: admin,
      body: { permissions: ["file:read"] },
    });
    expect(narrow.status).toBe(403);
    const describe = await s.api("PUT", `/api/v1/roles/${memberRole.id}`, {
      token: admin,
      body: { description: "Everyone" },
    });
    expect(describe.status).toBe(200);
  });

  it("assigns and unassigns; the user's next token carries the new permissions", async () => {
    const u = await createUser(s, admin, "promoted");
    expect(claimsOf(u.token).permissions).not.toContain("group:manage");
    const role = await s.api("POST", "/api/v1/roles", {
      token: admin,
      body: { name: "Group keepers", description: "", permissions: ["group:manage"] },
    });
    const assign = await s.api("POST", `/api/v1/roles/${role.body.id}/assign`, {
      token: admin,
      body: { user_id: u.userId },
    });
    expect(assign.status).toBe(200);
    expect(assign.body).toEqual({ success: true });
    const next = await s.login("promoted", GOOD_PASSWORD);
    expect(claimsOf(next).permissions).toContain("group:manage");
    expect(
      (await s.api("POST", "/api/v1/groups", { token: next, body: { name: "g-by-promoted" } })).status,
    ).toBe(201);
    const un = await s.api("POST", `/api/v1/roles/${role.body.id}/unassign`, {
      token: admin,
      body: { user_id: u.userId },
    });
    expect(un.status).toBe(200);
    // Removal applies at once, even to the token issued before it.
    expect((await s.api("POST", "/api/v1/groups", { token: next, body: { name: "g-late" } })).status).toBe(
      403,
    );
    const after = await s.login("promoted", GOOD_PASSWORD);
    expect(claimsOf(after).permissions).not.toContain("group:manage");
    expect((await s.api("POST", "/api/v1/groups", { token: after, body: { name: "g2" } })).status).toBe(403);
  });

  it("a token or key issued before a narrowing keeps what the narrower role still gives", async () => {
    const u = await createUser(s, admin, "demoted", "Admin");
    const key = await s.api("POST", "/api/v1/api-keys", {
      token: u.token,
      body: { name: "laptop", permissions: ["file:*"] },
    });
    expect(key.status).toBe(201);
    const reader = await s.api("POST", "/api/v1/roles", {
      token: admin,
      body: { name: "Narrow readers", permissions: ["file:read", "org:read"] },
    });
    expect(
      (await s.api("PUT", `/api/v1/users/${u.userId}`, { token: admin, body: { role: "Narrow readers" } }))
        .status,
    ).toBe(200);
    // The old token claimed *:*, the key file:*: each now reads, and does no more.
    for (const token of [u.token, { apiKey: key.body.key as string }]) {
      expect((await s.api("GET", "/api/v1/files", { token })).status).toBe(200);
      expect((await s.api("POST", "/api/v1/directories", { token, body: { name: "nope" } })).status).toBe(
        403,
      );
    }
    expect((await s.api("GET", "/api/v1/users", { token: u.token })).status).toBe(403);
    expect(reader.status).toBe(201);
  });

  it("members cannot assign roles; assigning to unknown users answers 404", async () => {
    const adminRole = await roleByName("Admin");
    const self = await s.api("POST", `/api/v1/roles/${adminRole.id}/assign`, {
      token: member.token,
      body: { user_id: member.userId },
    });
    expect(self.status).toBe(403);
    const ghost = await s.api("POST", `/api/v1/roles/${adminRole.id}/assign`, {
      token: admin,
      body: { user_id: "0190c7a8-0000-7000-8000-000000000000" },
    });
    expect(ghost.status).toBe(404);
    const noBody = await s.api("POST", `/api/v1/roles/${adminRole.id}/assign`, { token: admin, body: {} });
    expect(noBody.status).toBe(400);
  });

  it("a role manager cannot grant permissions they do not hold", async () => {
    const managers = await s.api("POST", "/api/v1/roles", {
      token: admin,
      body: { name: "Role managers", description: "", permissions: ["role:manage", "file:read"] },
    });
    const m = await createUser(s, admin, "rolemanager", "Role managers");
    const escalate = await s.api("POST", "/api/v1/roles", {
      token: m.token,
      body: { name: "Everything", description: "", permissions: ["*:*"] },
    });
    expect(escalate.status).toBe(403);
    const adminRole = await roleByName("Admin");
    const grab = await s.api("POST", `/api/v1/roles/${adminRole.id}/assign`, {
      token: m.token,
      body: { user_id: m.userId },
    });
    expect(grab.status).toBe(403);
    const fine = await s.api("POST", "/api/v1/roles", {
      token: m.token,
      body: { name: "Readers", description: "", permissions: ["file:read"] },
    });
    expect(fine.status).toBe(201);
    expect(managers.status).toBe(201);
  });

  it("a role manager cannot narrow or delete a role held by someone wider than themself", async () => {
    const boss = await s.api("POST", "/api/v1/roles", {
      token: admin,
      body: { name: "Boss", description: "", permissions: ["*:*"] },
    });
    expect(boss.status).toBe(201);
    const chief = await createUser(s, admin, "chief", "Boss");
    const delegates = await s.api("POST", "/api/v1/roles", {
      token: admin,
      body: { name: "Role delegates", description: "", permissions: ["role:manage", "file:*"] },
    });
    expect(delegates.status).toBe(201);
    const d = await createUser(s, admin, "roledelegate", "Role delegates");
    const narrow = await s.api("PUT", `/api/v1/roles/${boss.body.id}`, {
      token: d.token,
      body: { permissions: ["file:read"] },
    });
    expect([narrow.status, narrow.body.error?.code]).toEqual([403, "ERR_PERMISSION_DENIED"]);
    const del = await s.api("DELETE", `/api/v1/roles/${boss.body.id}`, { token: d.token });
    expect([del.status, del.body.error?.code]).toEqual([403, "ERR_PERMISSION_DENIED"]);
    expect((await roleByName("Boss")).permissions).toEqual(["*:*"]);
    expect((await s.api("GET", "/api/v1/users", { token: chief.token })).status).toBe(200);
    // A role held only by users within the delegate's powers stays theirs to change.
    const own = await s.api("POST", "/api/v1/roles", {
      token: d.token,
      body: { name: "Uploaders", description: "", permissions: ["file:write"] },
    });
    await createUser(s, admin, "uploader", "Uploaders");
    const put = await s.api("PUT", `/api/v1/roles/${own.body.id}`, {
      token: d.token,
      body: { permissions: ["file:read"] },
    });
    expect(put.status).toBe(200);
    expect((await s.api("DELETE", `/api/v1/roles/${own.body.id}`, { token: d.token })).status).toBe(200);
  });

  it("refuses to unassign the last active Admin", async () => {
    const adminRole = await roleByName("Admin");
    const profile = await s.api("GET", "/api/v1/auth/profile", { token: admin });
    const r = await s.api("POST", `/api/v1/roles/${adminRole.id}/unassign`, {
      token: admin,
      body: { user_id: profile.body.id },
    });
    expect(r.status).toBe(409);
  });

  it("another organization's roles answer 404 and are not listed", async () => {
    const other = await register(s, "roleoutsider");
    const viewer = await s.api("POST", "/api/v1/roles", {
      token: admin,
      body: { name: "Secret role", description: "", permissions: ["file:read"] },
    });
    const id = viewer.body.id;
    expect((await s.api("GET", `/api/v1/roles/${id}`, { token: other.token })).status).toBe(404);
    expect(
      (await s.api("PUT", `/api/v1/roles/${id}`, { token: other.token, body: { name: "x" } })).status,
    ).toBe(404);
    expect((await s.api("DELETE", `/api/v1/roles/${id}`, { token: other.token })).status).toBe(404);
    const assign = await s.api("POST", `/api/v1/roles/${id}/assign`, {
      token: other.token,
      body: { user_id: other.userId },
    });
    expect(assign.status).toBe(404);
    // Their own role given to our user: the user is not theirs.
    const theirs = (await s.api("GET", "/api/v1/roles", { token: other.token })).body.roles;
    expect(theirs.map((r: { name: string }) => r.name)).not.toContain("Secret role");
    const cross = await s.api("POST", `/api/v1/roles/${theirs[0].id}/assign`, {
      token: other.token,
      body: { user_id: member.userId },
    });
    expect(cross.status).toBe(404);
  });
});
