import { mkdirSync, renameSync, rmSync, symlinkSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer, type TestServer } from "../helpers/server.ts";
import { folders, hostTree, waitFor, write } from "./watched.helpers.ts";

describe("serving watched files from the host, and rescans (live watching off)", () => {
  let s: TestServer;
  let token: string;
  let root: string;
  let outside: string;
  let folderId: string;
  const ids: Record<string, string> = {};
  const video = Buffer.alloc(100_000, 7);
  const roots: string[] = [];

  beforeAll(async () => {
    // Live watching off: this file checks serving, so the index must not follow the swaps made below.
    s = await startServer({ watch: { live: false, poll_interval: 3600 } });
    token = await s.login();
    outside = hostTree({ "secret.txt": "outside the root" });
    root = hostTree({ "notes/readme.txt": "hello from the host", "Videos/clip.mp4": "" });
    writeFileSync(join(root, "Videos/clip.mp4"), video);
    symlinkSync(join(outside, "secret.txt"), join(root, "escape.txt"));
    const f = folders(s, token);
    const created = await f.create({ name: "Host", path: root });
    folderId = created.body.id;
    await f.settled(folderId);
    const list = await s.api("GET", `/api/v1/watched-folders/${folderId}/files?limit=100`, { token });
    for (const file of list.body.files) ids[file.name] = file.id;
  });
  afterAll(async () => {
    await s.close();
    rmSync(root, { recursive: true, force: true });
    rmSync(outside, { recursive: true, force: true });
    for (const r of roots) rmSync(r, { recursive: true, force: true });
  });

  it("downloads, previews and streams with ranges straight from the host path", async () => {
    const dl = await s.api("GET", `/api/v1/files/${ids["readme.txt"]}/download`, { token });
    expect([dl.status, dl.text]).toEqual([200, "hello from the host"]);
    const content = await s.api("GET", `/api/v1/files/${ids["readme.txt"]}/content`, { token });
    expect(content.body.content).toBe("hello from the host");
    const part = await fetch(`${s.url}/api/v1/files/${ids["clip.mp4"]}/stream`, {
      headers: { authorization: `Bearer ${token}`, range: "bytes=1000-1999" },
    });
    expect(part.status).toBe(206);
    expect(part.headers.get("content-range")).toBe(`bytes 1000-1999/${video.length}`);
    expect(Buffer.from(await part.arrayBuffer()).equals(video.subarray(1000, 2000))).toBe(true);
  });

  it("stops answering a hash as the tag of a host file edited in place since it was hashed", async () => {
    const root2 = hostTree({ "edit.txt": "first version" });
    roots.push(root2);
    const created = await folders(s, token).create({ name: "Edited", path: root2 });
    await folders(s, token).settled(created.body.id);
    const list = await s.api("GET", `/api/v1/watched-folders/${created.body.id}/files?limit=10`, { token });
    const id = (list.body.files as { id: string; name: string }[]).find((f) => f.name === "edit.txt")!.id;
    const hashed = (await waitFor(
      async () => (await s.api("GET", `/api/v1/files/${id}`, { token })).body.hash as string,
      (hash) => Boolean(hash),
    ))!;
    const first = await fetch(`${s.url}/api/v1/files/${id}/download`, {
      headers: { authorization: `Bearer ${token}` },
    });
    const oldTag = first.headers.get("etag")!;
    expect(oldTag).toBe(`"${hashed.slice(0, 32)}"`);
    await first.arrayBuffer();
    // Same length, other bytes, another mtime: live watching is off, so the row keeps the old hash.
    writeFileSync(join(root2, "edit.txt"), "other version");
    const later = new Date(Date.now() + 5000);
    utimesSync(join(root2, "edit.txt"), later, later);
    const cached = await fetch(`${s.url}/api/v1/files/${id}/download`, {
      headers: { authorization: `Bearer ${token}`, "if-none-match": oldTag },
    });
    expect(cached.status).toBe(200);
    expect(await cached.text()).toBe("other version");
    expect(cached.headers.get("etag")).not.toBe(oldTag);
    const resumed = await fetch(`${s.url}/api/v1/files/${id}/download`, {
      headers: { authorization: `Bearer ${token}`, range: "bytes=6-", "if-range": oldTag },
    });
    // The old copy cannot be resumed: the whole new file, never its tail spliced onto the old bytes.
    expect(resumed.status).toBe(200);
    expect(await resumed.text()).toBe("other version");
    // The other cases count this server's watched folders.
    const removed = await s.api("DELETE", `/api/v1/watched-folders/${created.body.id}`, { token });
    expect(removed.status).toBeLessThan(300);
  });

  it("never indexes nor serves a symlink leaving the root", async () => {
    expect(ids["escape.txt"]).toBeUndefined();
  });

  it("answers 404 when a directory is swapped for an escaping symlink after indexing", async () => {
    const id = ids["readme.txt"]!;
    renameSync(join(root, "notes"), join(root, "notes-real"));
    mkdirSync(join(outside, "notes"));
    writeFileSync(join(outside, "notes", "readme.txt"), "planted outside");
    symlinkSync(join(outside, "notes"), join(root, "notes"));
    const r = await s.api("GET", `/api/v1/files/${id}/download`, { token });
    expect(r.status).toBe(404);
    expect(r.text).not.toContain("planted");
    rmSync(join(root, "notes"));
    renameSync(join(root, "notes-real"), join(root, "notes"));
    expect((await s.api("GET", `/api/v1/files/${id}/download`, { token })).text).toBe("hello from the host");
  });

  it("skips unchanged directories on rescans and stats everything on a full one", async () => {
    const files: Record<string, string> = {};
    for (let d = 0; d < 5; d++) for (let i = 0; i < 4; i++) files[`d${d}/f${i}.txt`] = `${d}${i}`;
    const root = hostTree(files);
    roots.push(root);
    const f = folders(s, token);
    const { body } = await f.create({ name: "Rescan", path: root });
    expect((await f.settled(body.id)).files_seen).toBe(20);
    expect((await f.rescan(body.id)).files_seen).toBe(0);
    write(root, "d3/extra.txt", "e");
    const after = await f.rescan(body.id);
    expect(after.files_seen).toBe(5); // only d3 was read
    expect(after.files_indexed).toBe(21);
    expect((await f.rescan(body.id, true)).files_seen).toBe(21);
    expect((await f.rescan(body.id, "body")).files_seen).toBe(21);
  });

  it("keeps rows read-only", async () => {
    const r = await s.api("PATCH", `/api/v1/files/${ids["readme.txt"]}`, { token, body: { name: "x.txt" } });
    expect([r.status, r.body.error?.code]).toEqual([403, "ERR_READ_ONLY"]);
  });

  it("answers 503 while the drive is offline, and serves again when it returns", async () => {
    const away = `${root}-away`;
    renameSync(root, away);
    const f = folders(s, token);
    await f.rescan(folderId);
    await waitFor(
      () => f.get(folderId),
      (x) => x.status === "offline",
    );
    const listed = await s.api("GET", `/api/v1/files/${ids["readme.txt"]}`, { token });
    expect(listed.status).toBe(200);
    const off = await s.api("GET", `/api/v1/files/${ids["readme.txt"]}/download`, { token });
    expect([off.status, off.body.error?.code]).toEqual([503, "ERR_UNAVAILABLE"]);
    renameSync(away, root);
    await waitFor(
      () => f.get(folderId),
      (x) => x.status === "polling",
    );
    const back = await s.api("GET", `/api/v1/files/${ids["readme.txt"]}/download`, { token });
    expect([back.status, back.text]).toEqual([200, "hello from the host"]);
    const health = await s.api("GET", "/health");
    expect(health.body.details.watched_folders).toMatchObject({ status: "degraded" });
    // Live watching is off here: every folder polls.
    expect(health.body.details.watched_folders.message).toBe("watched folders not live: 2 polling");
    // Anyone may read /health: ids and states, no folder names, host paths or error texts.
    expect(health.body.details.watched_folders.folders).toContainEqual({ id: folderId, status: "polling" });
    for (const f of health.body.details.watched_folders.folders)
      expect(Object.keys(f).sort()).toEqual(["id", "status"]);
    expect(health.text).not.toContain("Host");
    expect(health.text).not.toContain(root);
  });
});
