import { readdirSync } from "node:fs";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { mkdir, upload } from "../helpers/files.ts";
import { startServer, type TestServer } from "../helpers/server.ts";

const blobCount = (dir: string) =>
  readdirSync(join(dir, "blobs"), { recursive: true, withFileTypes: true }).filter((e) => e.isFile()).length;

describe("directories", () => {
  let s: TestServer;
  let token: string;
  beforeAll(async () => {
    s = await startServer();
    token = await s.login();
  });
  afterAll(() => s.close());

  it("creates directories as File records with child_count", async () => {
    const r = await s.api("POST", "/api/v1/directories", { token, body: { name: "Photos" } });
    expect(r.status).toBe(201);
    expect(r.body).toMatchObject({
      child_count: 0,
      file: { name: "Photos", path: "/Photos", type: "directory", mime_type: "inode/directory", size: 0 },
    });
    const sub = await s.api("POST", "/api/v1/directories", {
      token,
      body: { name: "2024", parent_id: r.body.file.id },
    });
    expect(sub.body.file.path).toBe("/Photos/2024");
    expect(sub.body.file.parent_id).toBe(r.body.file.id);
    await upload(s, token, "a.jpg", "a", { parentId: r.body.file.id });
    const got = await s.api("GET", `/api/v1/directories/${r.body.file.id}`, { token });
    expect(got.status).toBe(200);
    expect(got.body.child_count).toBe(2);
    const dup = await s.api("POST", "/api/v1/directories", { token, body: { name: "Photos" } });
    expect(dup.status).toBe(409);
    for (const name of ["", "..", "a/b", "a\\b", "x\u0000"]) {
      const bad = await s.api("POST", "/api/v1/directories", { token, body: { name } });
      expect(bad.status, JSON.stringify(name)).toBe(400);
    }
    const orphan = await s.api("POST", "/api/v1/directories", {
      token,
      body: { name: "x", parent_id: "01900000-0000-7000-8000-000000000000" },
    });
    expect(orphan.status).toBe(404);
    expect(orphan.body.error.code).toBe("ERR_DIRECTORY_NOT_FOUND");
  });

  it("answers 404 for a file id on directory routes", async () => {
    const f = await upload(s, token, "plain.txt", "x");
    const r = await s.api("GET", `/api/v1/directories/${f.body.id}`, { token });
    expect(r.status).toBe(404);
    expect(r.body.error.code).toBe("ERR_DIRECTORY_NOT_FOUND");
  });

  it("lists children with pagination and directories with GET /directories", async () => {
    const d = await mkdir(s, token, "many");
    await mkdir(s, token, "sub", d.id);
    for (let i = 0; i < 5; i++) await upload(s, token, `f${i}.txt`, `${i}`, { parentId: d.id });
    const page = await s.api("GET", `/api/v1/directories/${d.id}/children?limit=3&offset=0`, { token });
    expect(page.status).toBe(200);
    expect(page.body.total).toBe(6);
    expect(page.body.files.map((f: { name: string }) => f.name)).toEqual(["sub", "f0.txt", "f1.txt"]);
    const rest = await s.api("GET", `/api/v1/directories/${d.id}/children?limit=3&offset=3`, { token });
    expect(rest.body.files.map((f: { name: string }) => f.name)).toEqual(["f2.txt", "f3.txt", "f4.txt"]);
    const dirs = await s.api("GET", `/api/v1/directories?parent_id=${d.id}`, { token });
    expect(dirs.status).toBe(200);
    expect(dirs.body).toMatchObject({ total: 1, directories: [{ file: { name: "sub" }, child_count: 0 }] });
    const top = await s.api("GET", "/api/v1/directories", { token });
    expect(top.body.directories.every((x: { file: { type: string } }) => x.file.type === "directory")).toBe(
      true,
    );
  });

  it("returns the tree to a depth (0 = unlimited)", async () => {
    const root = await mkdir(s, token, "treeroot");
    const a = await mkdir(s, token, "a", root.id);
    const b = await mkdir(s, token, "b", a.id);
    await mkdir(s, token, "c", b.id);
    await mkdir(s, token, "z", root.id);
    await upload(s, token, "leaf.txt", "x", { parentId: a.id });
    const all = await s.api("GET", `/api/v1/directories/${root.id}/tree`, { token });
    expect(all.status).toBe(200);
    type Node = { directory: { file: { name: string }; child_count: number }; children: Node[] };
    const names = (n: Node): unknown => [n.directory.file.name, n.children.map(names)];
    expect(names(all.body)).toEqual([
      "treeroot",
      [
        ["a", [["b", [["c", []]]]]],
        ["z", []],
      ],
    ]);
    expect(all.body.children[0].directory.child_count).toBe(2);
    const one = await s.api("GET", `/api/v1/directories/${root.id}/tree?depth=1`, { token });
    expect(names(one.body)).toEqual([
      "treeroot",
      [
        ["a", []],
        ["z", []],
      ],
    ]);
    expect((await s.api("GET", `/api/v1/directories/${root.id}/tree?depth=-1`, { token })).status).toBe(400);
  });

  it("moves a directory and rewrites every descendant's path", async () => {
    const src = await mkdir(s, token, "movesrc");
    const inner = await mkdir(s, token, "inner", src.id);
    const f = await upload(s, token, "deep.txt", "deep", { parentId: inner.id });
    const dest = await mkdir(s, token, "movedest");
    const r = await s.api("POST", `/api/v1/directories/${src.id}/move`, {
      token,
      body: { new_parent_id: dest.id },
    });
    expect(r.status, r.text).toBe(200);
    expect(r.body.file.path).toBe("/movedest/movesrc");
    const deep = await s.api("GET", `/api/v1/files/${f.body.id}`, { token });
    expect(deep.body.path).toBe("/movedest/movesrc/inner/deep.txt");
    // Back to the top with null.
    const top = await s.api("PUT", `/api/v1/files/${src.id}/move`, { token, body: { new_parent_id: null } });
    expect(top.body.path).toBe("/movesrc");
    expect(top.body.parent_id).toBeUndefined();
    expect((await s.api("GET", `/api/v1/files/${f.body.id}`, { token })).body.path).toBe(
      "/movesrc/inner/deep.txt",
    );
    // No destination at all is refused rather than read as "the top".
    expect((await s.api("POST", `/api/v1/files/${f.body.id}/move`, { token, body: {} })).status).toBe(400);
    expect((await s.api("POST", `/api/v1/directories/${src.id}/move`, { token, body: {} })).status).toBe(400);
    const viaAlias = await s.api("POST", `/api/v1/files/${f.body.id}/move`, {
      token,
      body: { parent_id: dest.id },
    });
    expect(viaAlias.body.path).toBe("/movedest/deep.txt");
  });

  it("refuses to move or copy a directory into itself or its subtree (400)", async () => {
    const a = await mkdir(s, token, "cyc");
    const b = await mkdir(s, token, "child", a.id);
    for (const target of [a.id, b.id]) {
      const mv = await s.api("POST", `/api/v1/directories/${a.id}/move`, {
        token,
        body: { new_parent_id: target },
      });
      expect(mv.status).toBe(400);
      const cp = await s.api("POST", `/api/v1/files/${a.id}/copy`, {
        token,
        body: { destination_parent_id: target },
      });
      expect(cp.status).toBe(400);
    }
  });

  it("keeps the tree acyclic under concurrent crossing moves", async () => {
    for (let round = 0; round < 5; round++) {
      const x = await mkdir(s, token, `x${round}`);
      const y = await mkdir(s, token, `y${round}`);
      const [m1, m2] = await Promise.all([
        s.api("PUT", `/api/v1/files/${x.id}/move`, { token, body: { new_parent_id: y.id } }),
        s.api("PUT", `/api/v1/files/${y.id}/move`, { token, body: { new_parent_id: x.id } }),
      ]);
      expect([m1.status, m2.status].sort()).toEqual([200, 400]);
    }
  });

  it("renames with PATCH and PUT, updating descendants; clashes are 409", async () => {
    const d = await mkdir(s, token, "oldname");
    const f = await upload(s, token, "in.txt", "x", { parentId: d.id });
    const r = await s.api("PATCH", `/api/v1/files/${d.id}`, { token, body: { name: "newname" } });
    expect(r.status).toBe(200);
    expect(r.body.path).toBe("/newname");
    expect((await s.api("GET", `/api/v1/files/${f.body.id}`, { token })).body.path).toBe("/newname/in.txt");
    const put = await s.api("PUT", `/api/v1/files/${f.body.id}`, { token, body: { name: "renamed.txt" } });
    expect(put.body.path).toBe("/newname/renamed.txt");
    await mkdir(s, token, "taken");
    const clash = await s.api("PATCH", `/api/v1/files/${d.id}`, { token, body: { name: "taken" } });
    expect(clash.status).toBe(409);
    const bad = await s.api("PATCH", `/api/v1/files/${d.id}`, { token, body: { name: "a\\b" } });
    expect(bad.status).toBe(400);
    const moveBoth = await s.api("PATCH", `/api/v1/files/${f.body.id}`, {
      token,
      body: { name: "top.txt", parent_id: null },
    });
    expect(moveBoth.body.path).toBe("/top.txt");
  });

  it("copies a file sharing its blob and a directory with its subtree", async () => {
    const src = await mkdir(s, token, "copysrc");
    const sub = await mkdir(s, token, "sub", src.id);
    await upload(s, token, "one.txt", "content one", { parentId: src.id });
    await upload(s, token, "two.txt", "content two", { parentId: sub.id });
    const blobs = blobCount(s.dataDir);
    const dest = await mkdir(s, token, "copydest");
    const cp = await s.api("POST", `/api/v1/files/${src.id}/copy`, {
      token,
      body: { destination_parent_id: dest.id },
    });
    expect(cp.status, cp.text).toBe(201);
    expect(cp.body).toMatchObject({ name: "copysrc", path: "/copydest/copysrc", type: "directory" });
    expect(cp.body.id).not.toBe(src.id);
    const tree = await s.api("GET", `/api/v1/directories/${cp.body.id}/children`, { token });
    expect(tree.body.files.map((f: { name: string }) => f.name)).toEqual(["sub", "one.txt"]);
    const subCopy = tree.body.files[0];
    const deep = await s.api("GET", `/api/v1/directories/${subCopy.id}/children`, { token });
    expect(deep.body.files[0]).toMatchObject({ name: "two.txt", path: "/copydest/copysrc/sub/two.txt" });
    const file = tree.body.files[1];
    const again = await s.api("POST", `/api/v1/files/${file.id}/copy`, {
      token,
      body: { destination_parent_id: null, new_name: "one-copy.txt" },
    });
    expect(again.status).toBe(201);
    expect(again.body).toMatchObject({ path: "/one-copy.txt", hash: file.hash });
    expect(blobCount(s.dataDir)).toBe(blobs);
    const content = await s.api("GET", `/api/v1/files/${again.body.id}/content`, { token });
    expect(content.body.content).toBe("content one");
    const clash = await s.api("POST", `/api/v1/files/${file.id}/copy`, {
      token,
      body: { destination_parent_id: cp.body.id },
    });
    expect(clash.status).toBe(409);
  });

  it("deletes an empty directory; a non-empty one only with recursive=true", async () => {
    const empty = await mkdir(s, token, "empty");
    expect((await s.api("DELETE", `/api/v1/directories/${empty.id}`, { token })).body).toEqual({
      success: true,
    });
    const full = await mkdir(s, token, "full");
    const inner = await mkdir(s, token, "inner", full.id);
    const f = await upload(s, token, "x.txt", "x", { parentId: inner.id });
    const refused = await s.api("DELETE", `/api/v1/directories/${full.id}`, { token });
    expect(refused.status).toBe(400);
    expect((await s.api("DELETE", `/api/v1/directories/${full.id}?recursive=false`, { token })).status).toBe(
      400,
    );
    const ok = await s.api("DELETE", `/api/v1/directories/${full.id}?recursive=true`, { token });
    expect(ok.status).toBe(200);
    for (const path of [
      `/api/v1/directories/${full.id}`,
      `/api/v1/directories/${inner.id}/children`,
      `/api/v1/directories/${full.id}/tree`,
      `/api/v1/files/${f.body.id}`,
      `/api/v1/files/${f.body.id}/download`,
      `/api/v1/files/${f.body.id}/content`,
    ]) {
      expect((await s.api("GET", path, { token })).status, path).toBe(404);
    }
    // The name is free again.
    expect((await s.api("POST", "/api/v1/directories", { token, body: { name: "full" } })).status).toBe(201);
  });
  it("a directory's children follow every change at once, a write through another connection included", async () => {
    const dir = (await mkdir(s, token, "Followed")).id as string;
    const names = async () =>
      (await s.api("GET", `/api/v1/directories/${dir}/children?limit=100`, { token })).body.files.map(
        (f: { name: string }) => f.name,
      );
    expect(await names()).toEqual([]);
    const first = (await upload(s, token, "one.txt", "1", { parentId: dir })).body.id as string;
    expect(await names()).toEqual(["one.txt"]);
    expect(await names()).toEqual(["one.txt"]);
    const other = new Database(join(s.dataDir, "attic.db"));
    try {
      other.prepare("UPDATE files SET name = 'two.txt' WHERE id = ?").run(first);
    } finally {
      other.close();
    }
    let seen: string[] = [];
    for (let i = 0; i < 100 && seen[0] !== "two.txt"; i++) seen = await names();
    expect(seen).toEqual(["two.txt"]);
  });
});
