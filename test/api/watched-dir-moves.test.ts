import { mkdirSync, mkdtempSync, renameSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createUser, GOOD_PASSWORD, type Session } from "../helpers/accounts.ts";
import { ADMIN_PASSWORD, startServer, type TestServer } from "../helpers/server.ts";
import { dbRows, folders, hostTree, hostTreeAsync, waitFor, write } from "./watched.helpers.ts";

/**
 * A folder renamed or moved on the host, inside its watched folder, is the
 * same folder in the tree: its id, its own grants, and its files' ids (tags,
 * playback positions, share links) stay; its rows take the new paths and
 * are served from the new host paths. Before, it was indexed as a new
 * folder under its parent's grants: a private folder became readable by
 * whoever read its parent.
 */
describe.each([
  { how: "live watching", overrides: { watch: { debounce: 0.2 } } },
  // No events at all: only the rescan asked for (a quick one) sees the change.
  { how: "a rescan", overrides: { watch: { live: false, poll_interval: 3600 } } },
])("a private folder renamed or moved on the host, seen by $how", ({ how, overrides }) => {
  let s: TestServer;
  let admin: string;
  let member: Session;
  let f: ReturnType<typeof folders>;
  let root: string;
  let folderId: string;
  const ids: Record<string, string> = {};

  const as = (token: string, method: string, path: string, body?: unknown) =>
    s.api(method, path, { token, body });
  const fileAt = async (id: string) => (await as(admin, "GET", `/api/v1/files/${id}`)).body;
  /** Waits until the host's change is indexed (a rescan first when nothing watches). */
  const seen = async (path: string) => {
    if (how === "a rescan") await f.rescan(folderId);
    await waitFor(
      () => f.names(folderId),
      (names) => names.includes(path),
    );
  };
  const searchNames = async (token: string, q: string) =>
    ((await as(token, "GET", `/api/v1/search?q=${encodeURIComponent(q)}`)).body.files as { path: string }[])
      .map((x) => x.path)
      .sort();

  beforeAll(async () => {
    s = await startServer(overrides);
    admin = await s.login();
    member = await createUser(s, admin, "member");
    f = folders(s, admin);
    root = hostTree({
      "Family/Private/secret.txt": "the secret",
      "Family/Private/deep/loan.txt": "the loan",
      "Family/public.txt": "p",
      "Other/x.txt": "x",
    });
    const created = await f.create({ name: "Drive", path: root });
    expect(created.status).toBe(201);
    folderId = created.body.id;
    await f.settled(folderId);
    const listing = await as(admin, "GET", `/api/v1/watched-folders/${folderId}/files?limit=100`);
    for (const file of listing.body.files as { id: string; path: string; parent_id: string }[]) {
      ids[file.path.slice("/Drive/".length)] = file.id;
      if (file.path === "/Drive/Family/Private/secret.txt") ids.Private = file.parent_id;
      if (file.path === "/Drive/Family/public.txt") ids.Family = file.parent_id;
    }
    // Private: admins only. The member reads everything else (the top's default list).
    expect((await as(admin, "PUT", "/api/v1/grants", { directory_id: ids.Private, grants: [] })).status).toBe(
      200,
    );
    const tag = await as(admin, "POST", "/api/v1/tags", { name: "taxes", color: "#112233" });
    expect(tag.status).toBe(201);
    ids.tag = tag.body.id;
    const secret = ids["Family/Private/secret.txt"]!;
    expect((await as(admin, "POST", `/api/v1/files/${secret}/tags`, { tag_ids: [ids.tag] })).status).toBe(
      200,
    );
    expect(
      (
        await as(admin, "PUT", `/api/v1/playback-positions/${secret}`, {
          position_seconds: 42,
          duration_seconds: 100,
        })
      ).status,
    ).toBe(200);
    const share = await as(admin, "POST", "/api/v1/shares", { file_id: secret });
    expect(share.status).toBe(201);
    ids.share = share.body.token;
    expect((await as(member.token, "GET", `/api/v1/files/${ids.Private}`)).status).toBe(404);
  });
  afterAll(async () => {
    await s.close();
    rmSync(root, { recursive: true, force: true });
  });

  /** Everything that must hold of the private folder once it lives at `dir` (a path below /Drive). */
  const stillPrivateAt = async (dir: string, oldDir?: string) => {
    const name = dir.slice(dir.lastIndexOf("/") + 1);
    const secret = ids["Family/Private/secret.txt"]!;
    const loan = ids["Family/Private/deep/loan.txt"]!;
    // The same rows, at their new paths.
    expect(await fileAt(ids.Private!)).toMatchObject({ name, path: `/Drive/${dir}` });
    expect((await fileAt(secret)).path).toBe(`/Drive/${dir}/secret.txt`);
    expect((await fileAt(loan)).path).toBe(`/Drive/${dir}/deep/loan.txt`);
    const names = await f.names(folderId);
    expect(names).toEqual(
      expect.arrayContaining([`/Drive/${dir}/deep/loan.txt`, `/Drive/${dir}/secret.txt`]),
    );
    if (oldDir) expect(names.filter((n) => n.startsWith(`/Drive/${oldDir}/`))).toEqual([]);
    // Its own grants still govern it: the member who reads its parent gets 404 on every way in.
    const g = await as(admin, "GET", `/api/v1/grants?directory_id=${ids.Private}`);
    expect(g.body).toMatchObject({ own: true });
    for (const id of [ids.Private, secret, loan])
      expect((await as(member.token, "GET", `/api/v1/files/${id}`)).status).toBe(404);
    expect((await as(member.token, "GET", `/api/v1/files/${loan}/download`)).status).toBe(404);
    const parentId = (await fileAt(ids.Private!)).parent_id;
    const children = await as(member.token, "GET", `/api/v1/directories/${parentId}/children`);
    expect(children.status).toBe(200);
    expect(JSON.stringify(children.body)).not.toContain(name);
    expect(await searchNames(member.token, "secret")).toEqual([]);
    expect(await searchNames(member.token, "loan")).toEqual([]);
    // Search finds it by its new name, and nothing by the old one.
    expect(await searchNames(admin, name)).toContain(`/Drive/${dir}`);
    if (oldDir) {
      const oldName = oldDir.slice(oldDir.lastIndexOf("/") + 1);
      expect((await searchNames(admin, oldName)).filter((p) => p.startsWith(`/Drive/${oldDir}`))).toEqual([]);
    }
    // Tags, the playback position and the share link stay with the file; bytes come from the new host path.
    const tags = await as(admin, "GET", `/api/v1/files/${secret}/tags`);
    expect(JSON.stringify(tags.body)).toContain(ids.tag);
    const pos = await as(admin, "GET", `/api/v1/playback-positions/${secret}`);
    expect(pos.body.position_seconds).toBe(42);
    const dl = await as(admin, "GET", `/api/v1/files/${loan}/download`);
    expect(dl.status).toBe(200);
    expect(dl.text).toBe("the loan");
    const shared = await s.api("GET", `/s/${ids.share}/download`);
    expect(shared.status).toBe(200);
    expect(shared.text).toBe("the secret");
    // By path (WebDAV): there for the admin at the new path only, never for the member.
    const dav = async (user: string, password: string, path: string) => {
      const r = await fetch(`${s.url}/dav/Drive/${path}`, {
        headers: { authorization: `Basic ${Buffer.from(`${user}:${password}`).toString("base64")}` },
      });
      return { status: r.status, text: await r.text() };
    };
    expect(await dav("admin", ADMIN_PASSWORD, `${dir}/secret.txt`)).toEqual({
      status: 200,
      text: "the secret",
    });
    expect((await dav("member", GOOD_PASSWORD, `${dir}/secret.txt`)).status).toBe(404);
    if (oldDir) expect((await dav("admin", ADMIN_PASSWORD, `${oldDir}/secret.txt`)).status).toBe(404);
  };

  it("renamed in its parent: keeps its id, grants, tags and positions, under the new name", async () => {
    renameSync(join(root, "Family/Private"), join(root, "Family/Hidden"));
    await seen("/Drive/Family/Hidden/secret.txt");
    await stillPrivateAt("Family/Hidden", "Family/Private");
  });

  it("moved to another parent: the same, and what is written in it later is private too", async () => {
    renameSync(join(root, "Family/Hidden"), join(root, "Other/Vault"));
    await seen("/Drive/Other/Vault/secret.txt");
    await stillPrivateAt("Other/Vault", "Family/Hidden");
    // New files below it follow its host path and its grants.
    write(root, "Other/Vault/deep/later.txt", "later");
    await seen("/Drive/Other/Vault/deep/later.txt");
    expect(await searchNames(admin, "later")).toEqual(["/Drive/Other/Vault/deep/later.txt"]);
    expect(await searchNames(member.token, "later")).toEqual([]);
  });

  it("a new folder made at the old name is a new folder, under its parent's grants", async () => {
    mkdirSync(join(root, "Family/Private"));
    write(root, "Family/Private/open.txt", "o");
    await seen("/Drive/Family/Private/open.txt");
    const found = await searchNames(member.token, "open");
    expect(found).toEqual(["/Drive/Family/Private/open.txt"]);
    expect((await fileAt(ids.Private!)).path).toBe("/Drive/Other/Vault");
  });

  it("moved into a folder made in the same moment: the same", async () => {
    mkdirSync(join(root, "Archive/2024"), { recursive: true });
    renameSync(join(root, "Other/Vault"), join(root, "Archive/2024/Vault"));
    await seen("/Drive/Archive/2024/Vault/secret.txt");
    await stillPrivateAt("Archive/2024/Vault", "Other/Vault");
    expect((await fileAt(ids["Family/Private/secret.txt"]!)).path).toBe(
      "/Drive/Archive/2024/Vault/secret.txt",
    );
  });

  it("renamed while a new folder takes its old name at once: each is what it is on the host", async () => {
    // A rotation: mv Vault Vault.1 && mkdir Vault.
    renameSync(join(root, "Archive/2024/Vault"), join(root, "Archive/2024/Vault.1"));
    mkdirSync(join(root, "Archive/2024/Vault"));
    write(root, "Archive/2024/Vault/fresh.txt", "f");
    await seen("/Drive/Archive/2024/Vault/fresh.txt");
    await seen("/Drive/Archive/2024/Vault.1/secret.txt");
    await stillPrivateAt("Archive/2024/Vault.1");
    const names = await f.names(folderId);
    expect(names.filter((n) => n.startsWith("/Drive/Archive/2024/Vault/"))).toEqual([
      "/Drive/Archive/2024/Vault/fresh.txt",
    ]);
    // The new folder is new: under its parent's grants, the member reads it.
    expect(await searchNames(member.token, "fresh")).toEqual(["/Drive/Archive/2024/Vault/fresh.txt"]);
  });

  it("renamed just after a subfolder was removed in it: that subfolder goes, the rest keeps its rows", async () => {
    rmSync(join(root, "Archive/2024/Vault.1/deep"), { recursive: true });
    write(root, "Archive/2024/Vault.1/added.txt", "a");
    renameSync(join(root, "Archive/2024/Vault.1"), join(root, "Archive/2024/Vault.2"));
    await seen("/Drive/Archive/2024/Vault.2/added.txt");
    const names = await f.names(folderId);
    expect(names.filter((n) => n.includes("/Vault.1") || n.includes("loan") || n.includes("later"))).toEqual(
      [],
    );
    expect(await fileAt(ids.Private!)).toMatchObject({ path: "/Drive/Archive/2024/Vault.2" });
    expect((await fileAt(ids["Family/Private/secret.txt"]!)).path).toBe(
      "/Drive/Archive/2024/Vault.2/secret.txt",
    );
    expect(await searchNames(member.token, "added")).toEqual([]);
    expect(await searchNames(admin, "added")).toEqual(["/Drive/Archive/2024/Vault.2/added.txt"]);
  });
});

describe("a big private folder moved on the host", () => {
  let s: TestServer;
  let root: string;
  afterAll(async () => {
    await s?.close();
    if (root) rmSync(root, { recursive: true, force: true });
  });

  it("moves every row below it, in the writer's batches, to its new path and host path", {
    timeout: 60_000,
  }, async () => {
    const files: Record<string, string> = { "keep.txt": "k" };
    for (let d = 0; d < 3; d++) for (let i = 0; i < 1500; i++) files[`Big/d${d}/f${i}.txt`] = `${d}-${i}`;
    root = await hostTreeAsync(files);
    s = await startServer({ watch: { debounce: 0.2 } });
    const token = await s.login();
    const f = folders(s, token);
    const { body } = await f.create({ name: "Disk", path: root });
    await f.settled(body.id);
    const query = <T>(sql: string, ...params: unknown[]): T[] => dbRows<T>(s, sql, ...params);
    const [big] = query<{ id: string }>(
      "SELECT id FROM files WHERE watched_folder_id = ? AND host_rel_path = 'Big'",
      body.id,
    );
    expect(
      (await s.api("PUT", "/api/v1/grants", { token, body: { directory_id: big!.id, grants: [] } })).status,
    ).toBe(200);
    const rows = `SELECT f.id, f.path, f.host_rel_path AS rel, f.acl_id AS acl, f.name, p.path AS parent,
        p.host_rel_path AS prel FROM files f JOIN files p ON p.id = f.parent_id
      WHERE f.watched_folder_id = ? AND f.host_rel_path <> '' AND f.host_rel_path <> 'keep.txt'`;
    type Row = {
      id: string;
      path: string;
      rel: string;
      acl: string;
      name: string;
      parent: string;
      prel: string;
    };
    const before = query<Row>(rows, body.id);
    expect(before.length).toBe(1 + 3 + 4500);
    renameSync(join(root, "Big"), join(root, "Moved"));
    await waitFor(
      async () =>
        query<{ n: number }>(
          "SELECT count(*) AS n FROM files WHERE watched_folder_id = ? AND host_rel_path LIKE 'Moved/%'",
          body.id,
        )[0]!.n,
      (n) => n === 3 + 4500,
    );
    const after = query<Row>(rows, body.id);
    expect(after.map((r) => r.id).sort()).toEqual(before.map((r) => r.id).sort());
    const wrong = after.filter(
      (r) =>
        r.path !== `${r.parent}/${r.name}` ||
        r.rel !== (r.prel === "" ? r.name : `${r.prel}/${r.name}`) ||
        !r.rel.startsWith("Moved") ||
        r.acl !== big!.id,
    );
    expect(wrong).toEqual([]);
    const one = after.find((r) => r.rel === "Moved/d2/f1499.txt")!;
    const dl = await s.api("GET", `/api/v1/files/${one.id}/download`, { token });
    expect(dl.text).toBe("2-1499");
  });
});

describe("a folder indexed before identities were recorded (migration 0025)", () => {
  const cleanup: string[] = [];
  afterAll(() => {
    for (const d of cleanup) rmSync(d, { recursive: true, force: true });
  });

  it("gets its identity at the first scan after the upgrade, and keeps its grants when renamed after", {
    timeout: 60_000,
  }, async () => {
    const root = hostTree({ "Photos/Private/a.jpg": "a", "Photos/b.jpg": "b" });
    const dataDir = mkdtempSync(join(tmpdir(), "attic-dirmoves-"));
    cleanup.push(root, dataDir);
    const overrides = { watch: { debounce: 0.2 } };
    let s = await startServer(overrides, { keepDataDir: dataDir });
    let token = await s.login();
    const { body } = await folders(s, token).create({ name: "Drive", path: root });
    await folders(s, token).settled(body.id);
    const db = () => new Database(join(dataDir, "attic.db"));
    const privateId = (() => {
      const c = db();
      try {
        return (
          c.prepare("SELECT id FROM files WHERE host_rel_path = 'Photos/Private'").get() as { id: string }
        ).id;
      } finally {
        c.close();
      }
    })();
    expect(
      (await s.api("PUT", "/api/v1/grants", { token, body: { directory_id: privateId, grants: [] } })).status,
    ).toBe(200);
    await s.close();
    // The database as an older version left it: no directory's identity recorded.
    const c = db();
    c.prepare("UPDATE files SET host_inode = NULL").run();
    c.close();
    s = await startServer(overrides, { keepDataDir: dataDir });
    try {
      token = await s.login();
      const f = folders(s, token);
      await waitFor(
        () => f.get(body.id),
        (x) => x.status === "watching",
      );
      renameSync(join(root, "Photos/Private"), join(root, "Photos/Hidden"));
      await waitFor(
        () => f.names(body.id),
        (names) => names.includes("/Drive/Photos/Hidden/a.jpg"),
      );
      const moved = await s.api("GET", `/api/v1/files/${privateId}`, { token });
      expect(moved.body).toMatchObject({ path: "/Drive/Photos/Hidden" });
      const g = await s.api("GET", `/api/v1/grants?directory_id=${privateId}`, { token });
      expect(g.body).toMatchObject({ own: true });
    } finally {
      await s.close();
    }
  });
});
