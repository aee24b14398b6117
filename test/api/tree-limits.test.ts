import { randomUUID } from "node:crypto";
import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { rowIndexer } from "../../src/db/search-index.ts";
import { mkdir } from "../helpers/files.ts";
import { startServer, type TestServer } from "../helpers/server.ts";
import { folders, hostTree } from "./watched.helpers.ts";

/** Makes `n` empty directories under `parentId`, 16 at a time. */
async function fill(s: TestServer, token: string, parentId: string, n: number): Promise<void> {
  for (let i = 0; i < n; i += 16) {
    await Promise.all(
      Array.from({ length: Math.min(16, n - i) }, (_, k) => mkdir(s, token, `d${i + k}`, parentId)),
    );
  }
}

const childrenOf = async (s: TestServer, token: string, id: string) =>
  (await s.api("GET", `/api/v1/directories/${id}/children?limit=1`, { token })).body.total as number;

describe("bounded copies", () => {
  let s: TestServer;
  let token: string;
  let big: { id: string };
  beforeAll(async () => {
    s = await startServer({ storage: { max_copy_items: 1300 } });
    token = await s.login();
    big = await mkdir(s, token, "big");
    await fill(s, token, big.id, 1250); // 1251 rows with the root: more than one copy chunk
  }, 120_000);
  afterAll(() => s.close());

  it("copies a large directory in chunks while other requests go on, and shows it only when whole", async () => {
    const dest = await mkdir(s, token, "dest");
    const order: string[] = [];
    const copying = s
      .api("POST", `/api/v1/files/${big.id}/copy`, { token, body: { destination_parent_id: dest.id } })
      .then((r) => {
        order.push("copy");
        return r;
      });
    // Sent after the copy: a copy that blocked the event loop would answer first.
    const health = s.api("GET", "/health").then((r) => {
      order.push("health");
      return r;
    });
    const [copied, healthy] = await Promise.all([copying, health]);
    expect(copied.status).toBe(201);
    expect(healthy.status).toBe(200);
    expect(order).toEqual(["health", "copy"]);
    expect(await childrenOf(s, token, copied.body.id)).toBe(1250);
    // Nothing of the copy is left hidden, and none of it is in the trash.
    expect((await s.api("GET", "/api/v1/trash", { token })).body.total).toBe(0);
  });

  it("refuses a copy past storage.max_copy_items with a clear 400 and creates nothing", async () => {
    await fill(s, token, (await mkdir(s, token, "more", big.id)).id, 60);
    const dest = await mkdir(s, token, "dest2");
    const r = await s.api("POST", `/api/v1/files/${big.id}/copy`, {
      token,
      body: { destination_parent_id: dest.id },
    });
    expect([r.status, r.body.error.code]).toEqual([400, "ERR_VALIDATION"]);
    expect(r.body.error.message).toMatch(/max_copy_items/);
    expect(await childrenOf(s, token, dest.id)).toBe(0);
  });

  it("still refuses a copy into itself", async () => {
    const inner = await mkdir(s, token, "inner", big.id);
    const r = await s.api("POST", `/api/v1/files/${big.id}/copy`, {
      token,
      body: { destination_parent_id: inner.id },
    });
    expect(r.status).toBe(400);
  });
});

describe("path length and depth", () => {
  let s: TestServer;
  let token: string;
  beforeAll(async () => {
    s = await startServer({ storage: { max_path_length: 300, max_depth: 8 } });
    token = await s.login();
  });
  afterAll(() => s.close());

  it("refuses an item whose path would be too long or too deep", async () => {
    let parent: string | undefined;
    for (let i = 1; i <= 8; i++) parent = (await mkdir(s, token, `level${i}`, parent)).id;
    const deeper = await s.api("POST", "/api/v1/directories", {
      token,
      body: { name: "nine", parent_id: parent },
    });
    expect([deeper.status, deeper.body.error.code]).toEqual([400, "ERR_VALIDATION"]);
    expect(deeper.body.error.message).toMatch(/max_depth/);
    const a = await mkdir(s, token, "a".repeat(200));
    const long = await s.api("POST", "/api/v1/directories", {
      token,
      body: { name: "b".repeat(120), parent_id: a.id },
    });
    expect([long.status, long.body.error.message]).toEqual([400, expect.stringMatching(/max_path_length/)]);
  });

  it("refuses a move or copy that would push a subtree past the limits", async () => {
    const top = await mkdir(s, token, "t".repeat(150));
    const sub = await mkdir(s, token, "s".repeat(100));
    await mkdir(s, token, "c".repeat(100), sub.id); // /sss…/ccc… is 202 characters
    const moved = await s.api("POST", `/api/v1/files/${sub.id}/move`, {
      token,
      body: { new_parent_id: top.id },
    });
    expect(moved.status).toBe(400);
    const copied = await s.api("POST", `/api/v1/files/${sub.id}/copy`, {
      token,
      body: { destination_parent_id: top.id },
    });
    expect(copied.status).toBe(400);
    const list = await s.api("GET", `/api/v1/directories/${top.id}/children`, { token });
    expect(list.body.total).toBe(0);
  });
});

describe("an interrupted copy", () => {
  it("leaves hidden rows that the next start removes; they never show", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), "attic-copy-crash-"));
    try {
      let s = await startServer({}, { keepDataDir: dataDir });
      let token = await s.login();
      const src = await mkdir(s, token, "src");
      await s.close();
      // What a stop in the middle of a large copy leaves: rows written hidden in a copy batch.
      const db = new Database(join(dataDir, "attic.db"));
      const org = db.prepare("SELECT organization_id FROM files WHERE id = ?").pluck().get(src.id);
      const now = new Date().toISOString();
      const { lastInsertRowid } = db
        .prepare(
          `INSERT INTO files (id, organization_id, parent_id, name, path, type, size, mime_type, hash,
          is_deleted, deleted_at, delete_batch, created_at, updated_at, accessed_at)
         VALUES (?, ?, NULL, 'src', '/src', 'directory', 0, 'inode/directory', '', 1, ?, 'copy:x', ?, ?, ?)`,
        )
        .run(randomUUID(), org, now, now, now, now);
      rowIndexer(db)([lastInsertRowid]);
      db.close();
      s = await startServer({}, { keepDataDir: dataDir });
      token = await s.login();
      expect((await s.api("GET", "/api/v1/trash", { token })).body.total).toBe(0);
      const check = new Database(join(dataDir, "attic.db"), { readonly: true });
      expect(check.prepare("SELECT count(*) FROM files WHERE delete_batch LIKE 'copy:%'").pluck().get()).toBe(
        0,
      );
      check.close();
      await s.close();
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});

describe("watched scans within the tree's bounds", () => {
  it("index nothing past storage.max_depth or storage.max_path_length, and count it", async () => {
    const s = await startServer({ storage: { max_path_length: 300, max_depth: 8 }, watch: { live: false } });
    const root = hostTree({
      "ok.txt": "fine",
      "a/b/c/d/e/f/g/h/i/deep.txt": "too deep",
      [`${"x".repeat(100)}/${"y".repeat(100)}/${"z".repeat(100)}.txt`]: "too long",
    });
    try {
      const token = await s.login();
      const f = folders(s, token);
      const created = await f.create({ name: "Host", path: root });
      const done = await f.settled(created.body.id);
      const names = await f.names(created.body.id);
      expect(names).toEqual(["/Host/ok.txt"]);
      expect(done.scan_errors).toBeGreaterThanOrEqual(2);
    } finally {
      await s.close();
      rmSync(root, { recursive: true, force: true });
    }
  });
});

describe("a copy of a watched folder past storage.max_copy_items", () => {
  it("is refused before any of its files is read", async () => {
    const s = await startServer({ storage: { max_copy_items: 5 }, watch: { live: false } });
    const files: Record<string, string> = {};
    for (let i = 0; i < 8; i++) files[`f${i}.txt`] = `content ${i}`;
    const root = hostTree(files);
    try {
      const token = await s.login();
      const f = folders(s, token);
      const created = await f.create({ name: "Drive", path: root });
      await f.settled(created.body.id);
      // A file gone from the host since the scan: reading it fails, so a copy that read the
      // files before counting them would fail on it instead of answering the limit.
      rmSync(join(root, "f3.txt"));
      const dest = await mkdir(s, token, "dest");
      const r = await s.api("POST", `/api/v1/files/${created.body.directory_id}/copy`, {
        token,
        body: { destination_parent_id: dest.id },
      });
      expect([r.status, r.body.error?.code]).toEqual([400, "ERR_VALIDATION"]);
      expect(r.body.error.message).toMatch(/max_copy_items/);
      const blobs = readdirSync(join(s.dataDir, "blobs"), { recursive: true, withFileTypes: true });
      expect(blobs.filter((e) => e.isFile())).toEqual([]);
    } finally {
      await s.close();
      rmSync(root, { recursive: true, force: true });
    }
  });
});
