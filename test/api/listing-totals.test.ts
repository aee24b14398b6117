import { mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createWatchedRepo } from "../../src/domain/watched/watched.repo.ts";
import { claimsOf, createUser, type Session } from "../helpers/accounts.ts";
import { mkdir, upload } from "../helpers/files.ts";
import { startServer, type TestServer } from "../helpers/server.ts";
import { waitFor } from "./watched.helpers.ts";

/**
 * A directory's total is counted once and kept until a write adds, removes,
 * renames, moves or re-grants a row (files.repo.ts, db/change-watch.ts
 * movesWatch); hashing keeps it, yet the hashes show at once. Pages of one
 * entry, so every total below is the kept count, not a short last page.
 */
describe("directory totals", () => {
  let s: TestServer;
  let admin: string;
  let kid: Session;
  let host: string;

  const listing = async (token: string, dir: string, offset = 0) => {
    const r = await s.api("GET", `/api/v1/directories/${dir}/children?limit=1&offset=${offset}`, { token });
    expect(r.status).toBe(200);
    return r.body as { total: number; files: { name: string; hash?: string }[] };
  };
  const total = async (token: string, dir: string) => (await listing(token, dir)).total;
  const fileList = async (token: string, dir: string) => {
    const r = await s.api("GET", `/api/v1/files?parent_id=${dir}&limit=1`, { token });
    expect(r.status).toBe(200);
    return r.body.total as number;
  };

  beforeAll(async () => {
    host = realpathSync(mkdtempSync(join(tmpdir(), "attic-totals-host-")));
    for (let i = 0; i < 5; i++) writeFileSync(join(host, `f${i}.txt`), `file ${i}`);
    s = await startServer({ watch: { allowed_roots: [host], debounce: 0.2, hash_concurrency: 0 } });
    admin = await s.login();
    kid = await createUser(s, admin, "kid");
  });
  afterAll(async () => {
    await s.close();
    rmSync(host, { recursive: true, force: true });
  });

  it("follows uploads, deletes, restores, renames, moves and grants", async () => {
    const box = await mkdir(s, admin, "Box");
    const other = await mkdir(s, admin, "Other");
    const ids: string[] = [];
    for (let i = 0; i < 4; i++)
      ids.push((await upload(s, admin, `n${i}.txt`, `x${i}`, { parentId: box.id })).body.id);
    expect(await total(admin, box.id)).toBe(4);
    expect(await fileList(admin, box.id)).toBe(4);

    expect((await upload(s, admin, "n4.txt", "x4", { parentId: box.id })).status).toBe(201);
    expect(await total(admin, box.id)).toBe(5);
    expect((await s.api("DELETE", `/api/v1/files/${ids[0]}`, { token: admin })).status).toBe(200);
    expect(await total(admin, box.id)).toBe(4);
    expect(await fileList(admin, box.id)).toBe(4);
    expect((await s.api("POST", `/api/v1/trash/${ids[0]}/restore`, { token: admin })).status).toBe(200);
    expect(await total(admin, box.id)).toBe(5);
    const sub = await mkdir(s, admin, "sub", box.id);
    expect(await total(admin, box.id)).toBe(6);
    // A rename keeps the count and changes the order: the first entry is the directory, then "a…".
    const renamed = await s.api("PATCH", `/api/v1/files/${ids[1]}`, {
      token: admin,
      body: { name: "a.txt" },
    });
    expect(renamed.status).toBe(200);
    expect((await listing(admin, box.id, 1)).files.map((f) => f.name)).toEqual(["a.txt"]);
    const moved = await s.api("PATCH", `/api/v1/files/${ids[2]}`, {
      token: admin,
      body: { parent_id: other.id },
    });
    expect(moved.status).toBe(200);
    expect([await total(admin, box.id), await total(admin, other.id)]).toEqual([5, 1]);
    // A page past the end is empty and still tells the total; the last page is short and ends it.
    expect(await listing(admin, box.id, 50)).toEqual({ total: 5, files: [] });
    expect((await listing(admin, box.id, 4)).total).toBe(5);

    // Grants: the kid reads the top, then not "sub" (a list of its own), then nothing of Box.
    const grant = (directory_id: string | null, grants: unknown[]) =>
      s.api("PUT", "/api/v1/grants", { token: admin, body: { directory_id, grants } });
    expect((await grant(null, [{ subject_type: "everyone", level: "read" }])).status).toBe(200);
    expect(await total(kid.token, box.id)).toBe(5);
    const adminId = claimsOf(admin).sub as string;
    expect((await grant(sub.id, [{ subject_type: "user", subject_id: adminId, level: "read" }])).status).toBe(
      200,
    );
    expect([await total(kid.token, box.id), await total(admin, box.id)]).toEqual([4, 5]);
    expect((await grant(null, [])).status).toBe(200);
    expect(
      (await s.api("GET", `/api/v1/directories/${box.id}/children?limit=1`, { token: kid.token })).status,
    ).toBe(404);
  });

  it("keeps counting right while a watched folder is hashed, and shows the hashes", async () => {
    const created = await s.api("POST", "/api/v1/watched-folders", {
      token: admin,
      body: { name: "Drive", path: host },
    });
    expect(created.status).toBe(201);
    const folder = await waitFor(
      async () => (await s.api("GET", `/api/v1/watched-folders/${created.body.id}`, { token: admin })).body,
      (f) => f.status === "watching",
    );
    const dir = folder.directory_id as string;
    expect(await total(admin, dir)).toBe(5);
    expect((await listing(admin, dir)).files[0]?.hash).toBe(""); // not hashed yet

    // The server's hashing, as hasher.ts stores it (the folder was mounted with hashing off).
    const watched = createWatchedRepo(s.server.ctx.db);
    const rows = s.server.ctx.db.$client
      .prepare("SELECT id, size, host_mtime_ms AS mtimeMs FROM files WHERE parent_id = ? ORDER BY name")
      .all(dir) as { id: string; size: number; mtimeMs: number }[];
    expect(watched.setHashes(rows.map((r) => ({ ...r, hash: "ab".repeat(32) })))).toBe(5);
    expect((await listing(admin, dir)).files[0]?.hash).toBe("ab".repeat(32));
    expect(await total(admin, dir)).toBe(5);

    // Another connection's commit (an admin command beside the server) is seen too.
    const other = new Database(join(s.dataDir, "attic.db"));
    try {
      other
        .prepare("UPDATE files SET is_deleted = 1, deleted_at = ? WHERE id = ?")
        .run(new Date().toISOString(), rows[0]!.id);
    } finally {
      other.close();
    }
    expect(
      await waitFor(
        () => total(admin, dir),
        (n) => n === 4,
        2000,
      ),
    ).toBe(4);
  });
});
