import { rmSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { getBytes, mkdir, upload } from "../helpers/files.ts";
import { startServer, type TestServer } from "../helpers/server.ts";
import { folders, hostTree } from "./watched.helpers.ts";

describe("files in watched folders are read-only in the tree", () => {
  let s: TestServer;
  let token: string;
  let host: string;
  const extraHosts: string[] = [];
  let mountId: string;
  let fileId: string;
  let subdirId: string;
  beforeAll(async () => {
    s = await startServer();
    token = await s.login();
    host = hostTree({ "a.txt": "alpha from the host", "Sub/b.txt": "bee" });
    const f = folders(s, token);
    const created = await f.create({ name: "Host", path: host });
    expect(created.status, created.text).toBe(201);
    await f.settled(created.body.id);
    mountId = created.body.directory_id;
    const children = await s.api("GET", `/api/v1/directories/${mountId}/children`, { token });
    const byName = new Map(children.body.files.map((x: { name: string; id: string }) => [x.name, x.id]));
    fileId = byName.get("a.txt") as string;
    subdirId = byName.get("Sub") as string;
    expect(fileId && subdirId).toBeTruthy();
  });
  afterAll(async () => {
    await s.close();
    for (const h of [host, ...extraHosts]) rmSync(h, { recursive: true, force: true });
  });

  it("answers 403 ERR_READ_ONLY to upload, mkdir, rename, move and delete inside", async () => {
    const own = await upload(s, token, "mine.txt", "mine");
    const attempts = [
      await upload(s, token, "new.txt", "x", { parentId: mountId }),
      await upload(s, token, "new.txt", "x", { parentId: subdirId }),
      await s.api("POST", "/api/v1/directories", { token, body: { name: "d", parent_id: mountId } }),
      await s.api("PATCH", `/api/v1/files/${fileId}`, { token, body: { name: "renamed.txt" } }),
      await s.api("PUT", `/api/v1/files/${fileId}/move`, { token, body: { new_parent_id: null } }),
      await s.api("DELETE", `/api/v1/files/${fileId}`, { token }),
      await s.api("DELETE", `/api/v1/directories/${subdirId}?recursive=true`, { token }),
      await s.api("PATCH", `/api/v1/files/${mountId}`, { token, body: { name: "Renamed" } }),
      await s.api("PUT", `/api/v1/files/${own.body.id}/move`, { token, body: { new_parent_id: mountId } }),
      await s.api("POST", `/api/v1/files/${own.body.id}/copy`, {
        token,
        body: { destination_parent_id: subdirId },
      }),
    ];
    for (const r of attempts) {
      expect(r.status, r.text).toBe(403);
      expect(r.body.error.code).toBe("ERR_READ_ONLY");
    }
    // A directory holding a watched folder cannot be deleted from the tree either.
    const holder = await mkdir(s, token, "holder");
    extraHosts.push(hostTree({ "n.txt": "n" }));
    const nested = await folders(s, token).create({
      name: "Nested",
      path: extraHosts[0],
      parent_id: holder.id,
    });
    expect(nested.status, nested.text).toBe(201);
    const del = await s.api("DELETE", `/api/v1/directories/${holder.id}?recursive=true`, { token });
    expect(del.status).toBe(403);
  });

  it("serves watched files from the host and copies them into stored content", async () => {
    const d = await getBytes(s, token, `/api/v1/files/${fileId}/download`);
    expect(d.status).toBe(200);
    expect(d.bytes.toString()).toBe("alpha from the host");
    const text = await s.api("GET", `/api/v1/files/${fileId}/content`, { token });
    expect(text.body.content).toBe("alpha from the host");
    const cp = await s.api("POST", `/api/v1/files/${mountId}/copy`, {
      token,
      body: { destination_parent_id: null, new_name: "Snapshot" },
    });
    expect(cp.status, cp.text).toBe(201);
    const kids = await s.api("GET", `/api/v1/directories/${cp.body.id}/children`, { token });
    const a = kids.body.files.find((x: { name: string }) => x.name === "a.txt");
    expect(a.hash).toMatch(/^[0-9a-f]{64}$/);
    // The copy is ordinary content: writable, and independent of the host.
    expect((await s.api("PATCH", `/api/v1/files/${a.id}`, { token, body: { name: "a2.txt" } })).status).toBe(
      200,
    );
    expect((await s.api("GET", `/api/v1/files/${a.id}/content`, { token })).body.content).toBe(
      "alpha from the host",
    );
  });
});
