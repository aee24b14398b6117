import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, renameSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { register } from "../helpers/accounts.ts";
import { startServer, type TestServer } from "../helpers/server.ts";
import { dbRows, folders, hostTree, hostTreeAsync, waitFor, write } from "./watched.helpers.ts";

describe("watched folders", () => {
  let s: TestServer;
  let token: string;
  let f: ReturnType<typeof folders>;
  const roots: string[] = [];
  const tree = (files: Record<string, string>) => {
    const r = hostTree(files);
    roots.push(r);
    return r;
  };

  beforeAll(async () => {
    s = await startServer({ watch: { debounce: 0.2 }, auth: { registration_enabled: true } });
    token = await s.login();
    f = folders(s, token);
  });
  afterAll(async () => {
    await s.close();
    for (const r of roots) rmSync(r, { recursive: true, force: true });
  });

  it("mounts a host tree and indexes it, skipping exclusions, dot-files, FIFOs and escaping links", async () => {
    const root = tree({
      "a.txt": "alpha",
      "Movies/film.mp4": "not really a video",
      "Movies/Extras/b.txt": "bee",
      "@eaDir/thumb.jpg": "x",
      ".hidden": "x",
      "Music/#recycle/old.mp3": "x",
    });
    execFileSync("mkfifo", [join(root, "pipe")]);
    symlinkSync("/etc/hostname", join(root, "escape.txt"));
    symlinkSync(join(root, "a.txt"), join(root, "inside-link.txt"));
    symlinkSync("/etc", join(root, "etc-dir"));
    writeFileSync(join(root, Buffer.from("bad-\xff-name.txt", "latin1").toString("latin1")), "x");
    writeFileSync(
      Buffer.concat([Buffer.from(`${root}/raw-`), Buffer.from([0xff, 0xfe]), Buffer.from(".txt")]),
      "x",
    );

    const r = await f.create({ name: "Media", path: root });
    expect(r.status).toBe(201);
    expect(r.body).toMatchObject({ name: "Media", path: root, status: "scanning" });
    const done = await f.settled(r.body.id);
    expect(done.status).toBe("watching");
    expect(await f.names(r.body.id)).toEqual(
      [
        "/Media/a.txt",
        "/Media/Movies/film.mp4",
        "/Media/Movies/Extras/b.txt",
        "/Media/inside-link.txt",
        "/Media/bad-\u00ff-name.txt",
      ].sort(),
    );
    expect(done.files_indexed).toBe(5);
    expect(done.scan_errors).toBe(1); // the name that is not UTF-8
    const page = await s.api("GET", `/api/v1/watched-folders/${r.body.id}/files?limit=2&offset=1`, { token });
    expect(page.body.total).toBe(5);
    expect(page.body.files).toHaveLength(2);
    const film = (
      await s.api("GET", `/api/v1/watched-folders/${r.body.id}/files?limit=100`, { token })
    ).body.files.find((x: { name: string }) => x.name === "film.mp4");
    expect(film).toMatchObject({
      type: "file",
      size: 18,
      mime_type: "video/mp4",
      path: "/Media/Movies/film.mp4",
    });
    // Hashes fill in lazily in the background.
    const hashed = await waitFor(
      () => s.api("GET", `/api/v1/watched-folders/${r.body.id}/files?limit=100`, { token }),
      (x) => x.body.files.every((file: { hash: string }) => /^[0-9a-f]{64}$/.test(file.hash)),
    );
    const a = hashed.body.files.find((x: { name: string }) => x.name === "a.txt");
    expect(a.hash).toBe("8ed3f6ad685b959ead7022518e1af76cd816f8e8ec7ccdda1ed4018e8f2223f8");
  });

  it("refuses system dirs, the data dir, overlaps, relative paths and non-admins", async () => {
    const root = tree({ "x/y.txt": "y" });
    const ok = await f.create({ name: "Overlap", path: root });
    expect(ok.status).toBe(201);
    const cases: [string, number, string][] = [
      ["/", 403, "ERR_FORBIDDEN_PATH"],
      ["/etc", 403, "ERR_FORBIDDEN_PATH"],
      ["/proc/self", 403, "ERR_FORBIDDEN_PATH"],
      ["//etc/./ssl", 403, "ERR_FORBIDDEN_PATH"],
      [s.dataDir, 403, "ERR_FORBIDDEN_PATH"],
      [dirname(s.dataDir), 403, "ERR_FORBIDDEN_PATH"],
      [join(root, "x"), 403, "ERR_FORBIDDEN_PATH"],
      [dirname(root), 403, "ERR_FORBIDDEN_PATH"],
      ["relative/path", 400, "ERR_VALIDATION"],
      [`${root}/../x`, 400, "ERR_VALIDATION"],
      [join(root, "missing"), 400, "ERR_VALIDATION"],
      [join(root, "x", "y.txt"), 400, "ERR_VALIDATION"],
    ];
    for (const [path, status, code] of cases) {
      const r = await f.create({ name: "Nope", path });
      expect([path, r.status, r.body.error?.code]).toEqual([path, status, code]);
    }
    const link = join(tree({}), "to-etc");
    symlinkSync("/etc", link);
    expect((await f.create({ name: "Nope", path: link })).status).toBe(403);
    expect((await f.create({ name: "", path: root })).status).toBe(400);
    const unnamed = tree({});
    const byBasename = await f.create({ path: unnamed });
    expect([byBasename.status, byBasename.body.name]).toEqual([201, unnamed.split("/").pop()]);
    expect((await f.create({ name: "Overlap", path: tree({}) })).status).toBe(409);

    const other = await register(s, "watcher-stranger", { organization_name: "Elsewhere" });
    // The registrant is Admin of their own organization, but a host path is the instance admin's to give.
    const denied = await s.api("POST", "/api/v1/watched-folders", {
      token: other.token,
      body: { name: "Mine", path: tree({}) },
    });
    expect([denied.status, denied.body.error?.code]).toEqual([403, "ERR_PERMISSION_DENIED"]);
    const foreign = await s.api("GET", `/api/v1/watched-folders/${ok.body.id}`, { token: other.token });
    expect(foreign.status).toBe(404);
    const foreignFiles = await s.api("GET", `/api/v1/watched-folders/${ok.body.id}/files`, {
      token: other.token,
    });
    expect(foreignFiles.status).toBe(404);
    const foreignScan = await s.api("POST", `/api/v1/watched-folders/${ok.body.id}/scan`, {
      token: other.token,
    });
    expect(foreignScan.status).toBe(403);
    const list = await s.api("GET", "/api/v1/watched-folders", { token: other.token });
    expect(list.body.folders).toEqual([]);
  });

  it("follows adds, changes, renames and removals on disk within seconds", async () => {
    const root = tree({
      "keep.txt": "k",
      "old-name.txt": "old content",
      "gone.txt": "g",
      "sub/deep.txt": "d",
    });
    const { body } = await f.create({ name: "Live", path: root });
    await f.settled(body.id);
    const before = await s.api("GET", `/api/v1/watched-folders/${body.id}/files`, { token });
    const oldId = before.body.files.find((x: { name: string }) => x.name === "old-name.txt").id;
    const saved = await s.api("PUT", `/api/v1/playback-positions/${oldId}`, {
      token,
      body: { position_seconds: 3 },
    });
    expect(saved.status).toBe(200);
    write(root, "new.txt", "fresh");
    renameSync(join(root, "old-name.txt"), join(root, "renamed.txt"));
    rmSync(join(root, "gone.txt"));
    write(root, "newdir/inner/file.txt", "inner");
    rmSync(join(root, "sub"), { recursive: true });
    writeFileSync(join(root, "keep.txt"), "keep-changed");
    const want = ["/Live/keep.txt", "/Live/new.txt", "/Live/newdir/inner/file.txt", "/Live/renamed.txt"];
    await waitFor(
      () => f.names(body.id),
      (names) => JSON.stringify(names) === JSON.stringify(want),
    );
    const keep = await waitFor(
      () => s.api("GET", `/api/v1/watched-folders/${body.id}/files`, { token }),
      (r) => r.body.files.find((x: { name: string }) => x.name === "keep.txt")?.size === 12,
    );
    expect(keep.body.total).toBe(4);
    // A rename keeps the row, so its playback position (and tags) follow it.
    const renamed = keep.body.files.find((x: { name: string }) => x.name === "renamed.txt");
    expect(renamed.id).toBe(oldId);
    const position = await s.api("GET", `/api/v1/playback-positions/${oldId}`, { token });
    expect(position.body.position_seconds).toBe(3);
    // A move to another directory keeps the row too.
    renameSync(join(root, "renamed.txt"), join(root, "newdir", "moved.txt"));
    const afterMove = await waitFor(
      () => s.api("GET", `/api/v1/watched-folders/${body.id}/files`, { token }),
      (r) => r.body.files.some((x: { path: string }) => x.path === "/Live/newdir/moved.txt"),
    );
    expect(afterMove.body.files.find((x: { name: string }) => x.name === "moved.txt").id).toBe(oldId);
    expect(afterMove.body.files.some((x: { name: string }) => x.name === "renamed.txt")).toBe(false);
    expect((await s.api("GET", `/api/v1/playback-positions/${oldId}`, { token })).body.position_seconds).toBe(
      3,
    );
  });

  it("marks entries offline when the drive disappears and brings them back", async () => {
    const root = tree({ "show/ep1.mkv": "one", "show/ep2.mkv": "two" });
    const { body } = await f.create({ name: "Drive", path: root });
    await f.settled(body.id);
    const away = `${root}-away`;
    renameSync(root, away);
    const off = await waitFor(
      () => f.get(body.id),
      (x) => x.status === "offline",
    );
    expect(off.status_message).toMatch(/missing/);
    expect(await f.names(body.id)).toEqual(["/Drive/show/ep1.mkv", "/Drive/show/ep2.mkv"]);
    const health = await s.api("GET", "/health");
    expect(health.body.details.watched_folders.status).toBe("degraded");
    renameSync(away, root);
    await waitFor(
      () => f.get(body.id),
      (x) => x.status === "watching",
    );
    expect(await f.names(body.id)).toEqual(["/Drive/show/ep1.mkv", "/Drive/show/ep2.mkv"]);
  });

  /** A new folder of 24,000 files whose first scan has read where it is mounted (its rows extend that). */
  const scanning = async (name: string) => {
    const files: Record<string, string> = {};
    for (let d = 0; d < 40; d++) for (let i = 0; i < 600; i++) files[`d${d}/f${i}.txt`] = "x";
    const root = await hostTreeAsync(files);
    roots.push(root);
    const { body } = await f.create({ name, path: root });
    while (!(await f.get(body.id)).last_scan_started_at) await new Promise((r) => setTimeout(r, 10));
    return body as { id: string; directory_id: string };
  };
  /** Rows of the server's database, read on a connection of the test's own. */
  const query = <T>(sql: string, ...params: unknown[]): T[] => dbRows<T>(s, sql, ...params);

  it("renamed while its first scan runs: every row scanned lands under the new name", async () => {
    const folder = await scanning("Early");
    const put = await s.api("PUT", `/api/v1/watched-folders/${folder.id}`, { token, body: { name: "Late" } });
    expect(put.status).toBe(200);
    await f.settled(folder.id);
    const rows = query<{ path: string; name: string; parent: string }>(
      "SELECT f.path, f.name, p.path AS parent FROM files f JOIN files p ON p.id = f.parent_id WHERE f.watched_folder_id = ?",
      folder.id,
    );
    expect(rows.length).toBe(40 * 601);
    expect(rows.filter((r) => r.path !== `${r.parent}/${r.name}` || !r.path.startsWith("/Late/"))).toEqual(
      [],
    );
  });

  it("given its own grants while its first scan runs: every row scanned is governed by them", async () => {
    const folder = await scanning("Private drive");
    const grants = await s.api("PUT", "/api/v1/grants", {
      token,
      body: { directory_id: folder.directory_id, grants: [] },
    });
    expect(grants.status).toBe(200);
    await f.settled(folder.id);
    const acls = query(
      "SELECT acl_id AS acl, count(*) AS n FROM files WHERE watched_folder_id = ? GROUP BY acl_id",
      folder.id,
    );
    // The mount and every row below it: only the admins see them now (no row is left to the top's list).
    expect(acls).toEqual([{ acl: folder.directory_id, n: 1 + 40 * 601 }]);
  });

  it("renames and deletes a watched folder without touching the host", async () => {
    const root = tree({ "a/b.txt": "b" });
    const { body } = await f.create({ name: "Before", path: root });
    await f.settled(body.id);
    const put = await s.api("PUT", `/api/v1/watched-folders/${body.id}`, { token, body: { name: "After" } });
    expect(put.status).toBe(200);
    expect(put.body.name).toBe("After");
    expect(await f.names(body.id)).toEqual(["/After/a/b.txt"]);
    // Still watched after the rename: a new host file lands under the new name.
    writeFileSync(join(root, "a", "new.txt"), "n");
    await waitFor(
      () => f.names(body.id),
      (n) => JSON.stringify(n) === JSON.stringify(["/After/a/b.txt", "/After/a/new.txt"]),
    );
    const other = tree({ "c/d.txt": "d" });
    const moved = await s.api("PUT", `/api/v1/watched-folders/${body.id}`, { token, body: { path: other } });
    expect([moved.status, moved.body.path]).toEqual([200, other]);
    await f.settled(body.id, put.body.updated_at);
    await waitFor(
      () => f.names(body.id),
      (n) => JSON.stringify(n) === JSON.stringify(["/After/c/d.txt"]),
    );
    const bad = await s.api("PUT", `/api/v1/watched-folders/${body.id}`, { token, body: { path: "/etc" } });
    expect(bad.status).toBe(403);
    const inside = (await s.api("GET", `/api/v1/watched-folders/${body.id}/files`, { token })).body.files[0]
      .id;
    expect((await s.api("GET", `/api/v1/files/${inside}`, { token })).status).toBe(200);
    const del = await s.api("DELETE", `/api/v1/watched-folders/${body.id}`, { token });
    expect(del.body).toEqual({ success: true });
    expect((await s.api("GET", `/api/v1/watched-folders/${body.id}`, { token })).status).toBe(404);
    expect((await s.api("GET", `/api/v1/files/${inside}`, { token })).status).toBe(404);
    expect((await s.api("GET", `/api/v1/files/${body.directory_id}`, { token })).status).toBe(404);
    mkdirSync(join(root, "still-writable"));
    expect((await s.api("GET", "/api/v1/watched-folders/not-an-id", { token })).status).toBe(400);
  });
});

describe("watched folders in the tree, and across restarts", () => {
  it("mounts under a directory, shows in list, tree and search, refuses writes, and resumes after a restart", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), "attic-restart-"));
    const first = await startServer({ watch: { debounce: 0.2 } }, { keepDataDir: dataDir });
    const root = hostTree({ "Season 1/Pilot Episode.mkv": "p", "cover.jpg": "c" });
    let s = first;
    try {
      const token = await s.login();
      const parent = await s.api("POST", "/api/v1/directories", { token, body: { name: "Library" } });
      expect(parent.status).toBe(201);
      const parentId = parent.body.file?.id ?? parent.body.id;
      const f = folders(s, token);
      const created = await f.create({ name: "Shows", path: root, parent_id: parentId });
      expect(created.status).toBe(201);
      await f.settled(created.body.id);
      expect(await f.names(created.body.id)).toEqual([
        "/Library/Shows/Season 1/Pilot Episode.mkv",
        "/Library/Shows/cover.jpg",
      ]);
      const children = await s.api("GET", `/api/v1/files?parent_id=${created.body.directory_id}`, { token });
      expect(children.body.files.map((x: { name: string }) => x.name).sort()).toEqual([
        "Season 1",
        "cover.jpg",
      ]);
      // The payload says what the UI may offer: nothing that writes.
      for (const x of children.body.files)
        expect([x.name, x.read_only, x.is_offline]).toEqual([x.name, true, false]);
      const mount = await s.api("GET", `/api/v1/files/${created.body.directory_id}`, { token });
      expect(mount.body.read_only).toBe(true);
      const found = await s.api("GET", "/api/v1/search?q=pilot", { token });
      expect(found.body.files.map((x: { path: string }) => x.path)).toEqual([
        "/Library/Shows/Season 1/Pilot Episode.mkv",
      ]);
      const form = new FormData();
      form.append("file", new Blob(["x"]), "upload.txt");
      form.append("parent_id", created.body.directory_id);
      const upload = await s.api("POST", "/api/v1/files", { token, body: form });
      expect([upload.status, upload.body.error?.code]).toEqual([403, "ERR_READ_ONLY"]);
      const inside = await f.create({ name: "Nested", path: tree2(), parent_id: created.body.directory_id });
      expect(inside.status).toBe(403);

      await s.close();
      write(root, "Season 1/Episode 2.mkv", "2");
      s = await startServer({ watch: { debounce: 0.2 } }, { keepDataDir: dataDir });
      const token2 = await s.login();
      const f2 = folders(s, token2);
      const want = [
        "/Library/Shows/Season 1/Episode 2.mkv",
        "/Library/Shows/Season 1/Pilot Episode.mkv",
        "/Library/Shows/cover.jpg",
      ];
      await waitFor(
        () => f2.names(created.body.id),
        (n) => JSON.stringify(n) === JSON.stringify(want),
      );
      await waitFor(
        () => f2.get(created.body.id),
        (x) => x.status === "watching",
      );
      write(root, "Season 1/Episode 3.mkv", "3");
      await waitFor(
        () => f2.names(created.body.id),
        (n) => n.includes("/Library/Shows/Season 1/Episode 3.mkv"),
      );
    } finally {
      await s.close();
      rmSync(dataDir, { recursive: true, force: true });
      rmSync(root, { recursive: true, force: true });
    }
  });
});

const tree2 = () => hostTree({ "n.txt": "n" });
