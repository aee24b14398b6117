import { existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { loadConfig } from "../../src/config/load.ts";
import { openDb } from "../../src/db/client.ts";
import type { Actor } from "../../src/domain/actor.ts";
import { createFileServices } from "../../src/domain/files/area.ts";
import { bootstrap } from "../../src/domain/setup.ts";
import { createLogger } from "../../src/log.ts";
import { createMetrics } from "../../src/platform/metrics.ts";
import { createPasswordHasher } from "../../src/platform/passwords.ts";

/**
 * The files area's rules on a real SQLite file and blob store in a temp dir,
 * without HTTP: tree moves keep paths and grants in step, a failed upload
 * leaves neither a row nor a blob, a copy is deep and a delete is soft.
 * (The HTTP suites cover the same rules through the API; these pin the
 * domain so a route refactor cannot hide a regression.)
 */
describe("files area on a real database", () => {
  let dir: string;
  let area: ReturnType<typeof createFileServices>;
  let db: ReturnType<typeof openDb>;
  let admin: Actor;

  const bytes = (text: string) =>
    (async function* () {
      yield new TextEncoder().encode(text);
    })();

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), "attic-domain-"));
    const log = createLogger("silent");
    db = openDb({ file: join(dir, "attic.db"), log });
    const cfg = loadConfig({
      env: {},
      flags: { storage: { data_dir: dir }, auth: { initial_admin_password: "correct-Horse-battery-9" } },
    });
    await bootstrap(db, cfg, createPasswordHasher({ memoryKib: 1024, iterations: 1 }), log);
    const user = db.$client
      .prepare("SELECT id, organization_id FROM users WHERE username = 'admin'")
      .get() as {
      id: string;
      organization_id: string;
    };
    admin = {
      userId: user.id,
      username: "admin",
      organizationId: user.organization_id,
      permissions: ["*:*"],
      isInstanceAdmin: true,
      via: "jwt",
    };
    area = createFileServices({
      db,
      dataDir: dir,
      metrics: createMetrics(),
      log,
      maxUploadBytes: 1024 * 1024,
      limits: { maxCopyItems: 1000, maxPathLength: 4096, maxDepth: 64 },
    });
  });

  afterEach(async () => {
    await area.close();
    db.$client.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const pathOf = (id: string) =>
    (db.$client.prepare("SELECT path FROM files WHERE id = ?").get(id) as { path: string }).path;

  it("moves a folder with its subtree: every path below follows in one step", async () => {
    const a = area.directories.create(admin, { name: "A" }).file;
    const b = area.directories.create(admin, { name: "B", parent_id: a.id }).file;
    const f = await area.files.upload(admin, { name: "x.txt", parentId: b.id, source: bytes("x") });
    const target = area.directories.create(admin, { name: "Target" }).file;
    expect(pathOf(f.id)).toBe("/A/B/x.txt");
    area.files.move(admin, a.id, { new_parent_id: target.id });
    expect(pathOf(a.id)).toBe("/Target/A");
    expect(pathOf(b.id)).toBe("/Target/A/B");
    expect(pathOf(f.id)).toBe("/Target/A/B/x.txt");
    // Into its own subtree: refused, nothing changed.
    expect(() => area.files.move(admin, a.id, { new_parent_id: b.id })).toThrow();
    expect(pathOf(f.id)).toBe("/Target/A/B/x.txt");
  });

  it("rolls a failed upload back: no row, no blob, no temp file", async () => {
    const blobsBefore = readdirSync(join(dir, "blobs"), { recursive: true }).length;
    await expect(
      area.files.upload(admin, { name: "bad.txt", source: bytes("content"), expectedSha256: "0".repeat(64) }),
    ).rejects.toMatchObject({ code: "VALIDATION" });
    const failing = (async function* () {
      yield new TextEncoder().encode("half");
      throw new Error("the client went away");
    })();
    await expect(area.files.upload(admin, { name: "cut.txt", source: failing })).rejects.toThrow();
    const rows = db.$client
      .prepare("SELECT count(*) AS n FROM files WHERE name IN ('bad.txt', 'cut.txt')")
      .get() as {
      n: number;
    };
    expect(rows.n).toBe(0);
    expect(readdirSync(join(dir, "blobs"), { recursive: true }).length).toBe(blobsBefore);
    const tmp = join(dir, "tmp");
    if (existsSync(tmp)) expect(readdirSync(tmp)).toEqual([]);
  });

  it("stores identical content once and keeps it until the last row goes", async () => {
    const one = await area.files.upload(admin, { name: "one.txt", source: bytes("same") });
    const two = await area.files.upload(admin, { name: "two.txt", source: bytes("same") });
    expect(one.hash).toBe(two.hash);
    const blobCount = () =>
      (db.$client.prepare("SELECT count(*) AS n FROM blobs WHERE hash = ?").get(one.hash) as { n: number }).n;
    expect(blobCount()).toBe(1);
    area.files.remove(admin, one.id);
    // Soft delete: the row is in the trash, the content stays.
    expect((await area.files.openContent(admin, two.id)).size).toBe(4);
    expect(blobCount()).toBe(1);
  });
});
