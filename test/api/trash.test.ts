import { readdirSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { mkdir, upload } from "../helpers/files.ts";
import { startServer, type TestServer } from "../helpers/server.ts";

const blobFiles = (dir: string) =>
  readdirSync(join(dir, "blobs"), { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => e.name);

describe("trash, cross-organization isolation and permissions", () => {
  let s: TestServer;
  let admin: string;
  let member: string;
  let outsider: string;
  beforeAll(async () => {
    s = await startServer({ auth: { registration_enabled: true } });
    admin = await s.login();
    const u = await s.api("POST", "/api/v1/users", {
      token: admin,
      body: { username: "member1", email: "member1@example.com", password: "correct-Horse-battery-9" },
    });
    expect(u.status, u.text).toBe(201);
    member = await s.login("member1", "correct-Horse-battery-9");
    const reg = await s.api("POST", "/api/v1/auth/register", {
      body: {
        username: "outsider",
        email: "out@example.com",
        password: "correct-Horse-battery-9",
        organization_name: "Other",
      },
    });
    expect(reg.status, reg.text).toBe(201);
    outsider = reg.body.access_token;
  });
  afterAll(() => s.close());

  it("lists deleted items in the trash and restores a subtree to its old place", async () => {
    const d = await mkdir(s, member, "trip");
    const inner = await mkdir(s, member, "day1", d.id);
    const f = await upload(s, member, "pic.jpg", "pixels", { parentId: inner.id });
    expect((await s.api("DELETE", `/api/v1/files/${d.id}?recursive=true`, { token: member })).status).toBe(
      200,
    );
    const listed = await s.api("GET", "/api/v1/files", { token: member });
    expect(listed.body.files.map((x: { id: string }) => x.id)).not.toContain(d.id);
    const trash = await s.api("GET", "/api/v1/trash", { token: member });
    expect(trash.status).toBe(200);
    // The deleted directory stands for its subtree.
    expect(trash.body.files.map((x: { id: string }) => x.id)).toEqual([d.id]);
    expect(trash.body.files[0]).toMatchObject({ is_deleted: true, deleted_at: expect.any(String) });
    const restored = await s.api("POST", `/api/v1/trash/${d.id}/restore`, { token: member });
    expect(restored.status, restored.text).toBe(200);
    expect(restored.body).toMatchObject({ path: "/trip", is_deleted: false });
    expect(restored.body.deleted_at).toBeUndefined();
    const back = await s.api("GET", `/api/v1/files/${f.body.id}`, { token: member });
    expect(back.body.path).toBe("/trip/day1/pic.jpg");
    expect((await s.api("GET", "/api/v1/trash", { token: member })).body.files).toEqual([]);
  });

  it("keeps items deleted earlier inside a restored directory in the trash", async () => {
    const d = await mkdir(s, member, "album");
    const early = await upload(s, member, "early.txt", "1", { parentId: d.id });
    const late = await upload(s, member, "late.txt", "2", { parentId: d.id });
    await s.api("DELETE", `/api/v1/files/${early.body.id}`, { token: member });
    await s.api("DELETE", `/api/v1/directories/${d.id}?recursive=true`, { token: member });
    await s.api("POST", `/api/v1/trash/${d.id}/restore`, { token: member });
    expect((await s.api("GET", `/api/v1/files/${late.body.id}`, { token: member })).status).toBe(200);
    expect((await s.api("GET", `/api/v1/files/${early.body.id}`, { token: member })).status).toBe(404);
  });

  it("answers 409 when the name is taken again or the parent is still in the trash", async () => {
    const f = await upload(s, member, "clash.txt", "old");
    await s.api("DELETE", `/api/v1/files/${f.body.id}`, { token: member });
    await upload(s, member, "clash.txt", "new");
    const r = await s.api("POST", `/api/v1/trash/${f.body.id}/restore`, { token: member });
    expect(r.status).toBe(409);
    expect(r.body.error.code).toBe("ERR_CONFLICT");

    const d = await mkdir(s, member, "parentgone");
    const child = await upload(s, member, "child.txt", "c", { parentId: d.id });
    await s.api("DELETE", `/api/v1/files/${child.body.id}`, { token: member });
    await s.api("DELETE", `/api/v1/directories/${d.id}`, { token: member });
    const orphan = await s.api("POST", `/api/v1/trash/${child.body.id}/restore`, { token: member });
    expect(orphan.status).toBe(409);
    expect((await s.api("POST", `/api/v1/trash/${d.id}/restore`, { token: member })).status).toBe(200);
    expect((await s.api("POST", `/api/v1/trash/${child.body.id}/restore`, { token: member })).status).toBe(
      200,
    );
  });

  it("purges for good and reclaims blobs nothing else uses", async () => {
    const shared1 = await upload(s, member, "shared-a.txt", "shared content");
    const shared2 = await upload(s, member, "shared-b.txt", "shared content");
    const solo = await upload(s, member, "solo.txt", "solo content");
    for (const f of [shared1, solo]) await s.api("DELETE", `/api/v1/files/${f.body.id}`, { token: member });
    expect(blobFiles(s.dataDir)).toContain(solo.body.hash);
    expect((await s.api("DELETE", `/api/v1/trash/${solo.body.id}`, { token: member })).status).toBe(200);
    expect((await s.api("DELETE", `/api/v1/trash/${shared1.body.id}`, { token: member })).status).toBe(200);
    expect(blobFiles(s.dataDir)).not.toContain(solo.body.hash);
    expect(blobFiles(s.dataDir)).toContain(shared2.body.hash);
    expect((await s.api("POST", `/api/v1/trash/${solo.body.id}/restore`, { token: member })).status).toBe(
      404,
    );
    // A live item is not in the trash.
    expect((await s.api("DELETE", `/api/v1/trash/${shared2.body.id}`, { token: member })).status).toBe(404);
  });

  it("lets only the owner or an admin restore or purge", async () => {
    const f = await upload(s, admin, "admins.txt", "a");
    await s.api("DELETE", `/api/v1/files/${f.body.id}`, { token: admin });
    expect(
      (await s.api("GET", "/api/v1/trash", { token: member })).body.files.map((x: { id: string }) => x.id),
    ).not.toContain(f.body.id);
    expect((await s.api("DELETE", `/api/v1/trash/${f.body.id}`, { token: member })).status).toBe(403);
    const mine = await upload(s, member, "members.txt", "m");
    await s.api("DELETE", `/api/v1/files/${mine.body.id}`, { token: member });
    const adminView = await s.api("GET", "/api/v1/trash?limit=100", { token: admin });
    expect(adminView.body.files.map((x: { id: string }) => x.id)).toContain(mine.body.id);
    expect((await s.api("DELETE", `/api/v1/trash/${mine.body.id}`, { token: admin })).status).toBe(200);
  });

  it("answers 404 for another organization's items on every route, exactly like a missing one", async () => {
    const d = await mkdir(s, admin, "private");
    const f = await upload(s, admin, "secret.txt", "secret", { parentId: d.id });
    const gone = await upload(s, admin, "trashed.txt", "t");
    await s.api("DELETE", `/api/v1/files/${gone.body.id}`, { token: admin });
    const missing = "01900000-0000-7000-8000-000000000000";
    const calls: [string, string, unknown?][] = [
      ["GET", `/api/v1/files/${f.body.id}`],
      ["GET", `/api/v1/files/${f.body.id}/download`],
      ["GET", `/api/v1/files/${f.body.id}/content`],
      ["GET", `/api/v1/files/${f.body.id}/stream`],
      ["PATCH", `/api/v1/files/${f.body.id}`, { name: "mine.txt" }],
      ["PUT", `/api/v1/files/${f.body.id}/move`, { new_parent_id: null }],
      ["POST", `/api/v1/files/${f.body.id}/copy`, { destination_parent_id: null }],
      ["DELETE", `/api/v1/files/${f.body.id}`],
      ["GET", `/api/v1/directories/${d.id}`],
      ["GET", `/api/v1/directories/${d.id}/children`],
      ["GET", `/api/v1/directories/${d.id}/tree`],
      ["POST", `/api/v1/directories/${d.id}/move`, { new_parent_id: null }],
      ["DELETE", `/api/v1/directories/${d.id}?recursive=true`],
      ["GET", `/api/v1/files?parent_id=${d.id}`],
      ["POST", `/api/v1/trash/${gone.body.id}/restore`],
      ["DELETE", `/api/v1/trash/${gone.body.id}`],
    ];
    for (const [method, path, body] of calls) {
      const theirs = await s.api(method, path, { token: outsider, body });
      const none = await s.api(
        method,
        path.replaceAll(f.body.id, missing).replaceAll(d.id, missing).replaceAll(gone.body.id, missing),
        {
          token: outsider,
          body,
        },
      );
      expect(theirs.status, `${method} ${path}`).toBe(404);
      expect(theirs.body.error.code).toBe(none.body.error.code);
    }
    // Uploading into or creating under their directory is 404 too.
    expect((await upload(s, outsider, "x.txt", "x", { parentId: d.id })).status).toBe(404);
    expect((await s.api("GET", "/api/v1/trash", { token: outsider })).body.files).toEqual([]);
    expect((await s.api("GET", "/api/v1/files", { token: outsider })).body.total).toBe(0);
    // And nothing changed for the owner.
    expect((await s.api("GET", `/api/v1/files/${f.body.id}`, { token: admin })).body.path).toBe(
      "/private/secret.txt",
    );
  });

  it("checks permissions at the entry (API key with file:read only)", async () => {
    const key = await s.api("POST", "/api/v1/auth/api-keys", {
      token: member,
      body: { name: "ro", permissions: ["file:read"] },
    });
    expect(key.status, key.text).toBe(201);
    const ro = { apiKey: key.body.key as string };
    expect((await s.api("GET", "/api/v1/files", { token: ro })).status).toBe(200);
    const form = new FormData();
    form.set("file", new Blob(["x"]), "ro.txt");
    expect((await s.api("POST", "/api/v1/files", { token: ro, body: form })).status).toBe(403);
    expect((await s.api("POST", "/api/v1/directories", { token: ro, body: { name: "no" } })).status).toBe(
      403,
    );
    const f = await upload(s, member, "keep.txt", "k");
    expect((await s.api("DELETE", `/api/v1/files/${f.body.id}`, { token: ro })).status).toBe(403);
    expect((await s.api("GET", "/metrics")).text).toMatch(/attic_file_deletions_total [1-9]/);
  });
});
