import { existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { loadConfig } from "../../src/config/load.ts";
import { openDb } from "../../src/db/client.ts";
import { createGrantsService } from "../../src/domain/access/grants.service.ts";
import type { Actor } from "../../src/domain/actor.ts";
import { createFileServices } from "../../src/domain/files/area.ts";
import { reclaimUnused } from "../../src/domain/files/content.ts";
import { createSubtreeJobs } from "../../src/domain/files/subtree-jobs.ts";
import { createTrashService } from "../../src/domain/files/trash.service.ts";
import { createTree } from "../../src/domain/files/tree.ts";
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
      minFreeBytes: 0,
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

  it("moves a folder with its subtree: every path below follows before the move answers", async () => {
    const a = area.directories.create(admin, { name: "A" }).file;
    const b = area.directories.create(admin, { name: "B", parent_id: a.id }).file;
    const f = await area.files.upload(admin, { name: "x.txt", parentId: b.id, source: bytes("x") });
    const target = area.directories.create(admin, { name: "Target" }).file;
    expect(pathOf(f.id)).toBe("/A/B/x.txt");
    await area.files.move(admin, a.id, { new_parent_id: target.id });
    expect(pathOf(a.id)).toBe("/Target/A");
    expect(pathOf(b.id)).toBe("/Target/A/B");
    expect(pathOf(f.id)).toBe("/Target/A/B/x.txt");
    // Into its own subtree: refused, nothing changed.
    await expect(area.files.move(admin, a.id, { new_parent_id: b.id })).rejects.toMatchObject({
      code: "VALIDATION",
    });
    expect(pathOf(f.id)).toBe("/Target/A/B/x.txt");
  });

  describe("a large folder's move, a folder at a time", () => {
    /** Folders `top`/d0..d{n-1}, each holding `per` files and one sub folder with `per` files; their ids. */
    const seed = (top: string, folders: number, per: number) => {
      const root = area.directories.create(admin, { name: top }).file;
      const ids: string[] = [];
      for (let i = 0; i < folders; i++) {
        const d = area.directories.create(admin, { name: `d${i}`, parent_id: root.id }).file;
        const sub = area.directories.create(admin, { name: "sub", parent_id: d.id }).file;
        for (let j = 0; j < per; j++) {
          ids.push(area.directories.create(admin, { name: `f${j}`, parent_id: d.id }).file.id);
          ids.push(area.directories.create(admin, { name: `g${j}`, parent_id: sub.id }).file.id);
        }
      }
      return root;
    };
    const stale = (prefix: string) =>
      (
        db.$client.prepare("SELECT count(*) AS n FROM files WHERE path LIKE ? || '/%'").get(prefix) as {
          n: number;
        }
      ).n;
    const pending = () =>
      (db.$client.prepare("SELECT count(*) AS n FROM subtree_jobs").get() as { n: number }).n;

    /** The area closed and built again over the same database: what a start does. */
    const restart = async () => {
      await area.close();
      area = createFileServices({
        db,
        dataDir: dir,
        metrics: createMetrics(),
        log: createLogger("silent"),
        maxUploadBytes: 1024 * 1024,
        minFreeBytes: 0,
        limits: { maxCopyItems: 1000, maxPathLength: 4096, maxDepth: 64 },
      });
    };
    /** The tree again over the same database, changing `sliceRows` rows per transaction. */
    const sliced = (sliceRows: number) => {
      const reclaim = async (hashes: readonly string[]) => {
        for (const hash of hashes) await reclaimUnused(area.repo, area.blobs, createLogger("silent"), hash);
      };
      const jobs = createSubtreeJobs(db, { sliceRows, reclaim });
      return createTree(
        db,
        area.repo,
        { maxCopyItems: 1000, maxPathLength: 4096, maxDepth: 64 },
        area.access,
        jobs,
      );
    };
    /** The trash over `tree`. */
    const trashOf = (tree: ReturnType<typeof sliced>) =>
      createTrashService({
        db,
        repo: area.repo,
        tree,
        access: area.access,
        blobs: area.blobs,
        metrics: createMetrics(),
        log: createLogger("silent"),
      });
    const rowsWhere = (sql: string, ...params: unknown[]) =>
      (db.$client.prepare(`SELECT count(*) AS n FROM files WHERE ${sql}`).get(...params) as { n: number }).n;

    it("writes the rows below in many transactions, and what is added meanwhile lands at the new path", async () => {
      const root = seed("Big", 6, 5);
      const tree = sliced(3);
      const moving = tree.relocate(admin, root.id, { name: "Renamed" });
      // The move is under way: its own row is renamed, its record kept until the subtree is done.
      for (let i = 0; i < 1000 && pending() === 0; i++) await new Promise((r) => setImmediate(r));
      expect(pending()).toBe(1);
      expect(pathOf(root.id)).toBe("/Renamed");
      expect(stale("/Big")).toBeGreaterThan(0);
      // A folder created deep inside meanwhile, and a file in it, end up under the new path.
      const d5 = area.repo.liveChild(admin.organizationId, root.id, "d5")!;
      const late = area.directories.create(admin, { name: "late", parent_id: d5.id }).file;
      const inLate = area.directories.create(admin, { name: "x", parent_id: late.id }).file;
      const moved = await moving;
      expect(moved.path).toBe("/Renamed");
      expect(pending()).toBe(0);
      expect(stale("/Big")).toBe(0);
      expect(pathOf(inLate.id)).toBe("/Renamed/d5/late/x");
      const rows = db.$client
        .prepare(
          "SELECT path, name, (SELECT path FROM files p WHERE p.id = f.parent_id) AS parent FROM files f WHERE path LIKE '/Renamed/%'",
        )
        .all() as { path: string; name: string; parent: string }[];
      expect(rows.length).toBe(6 * (2 + 2 * 5) + 2);
      for (const r of rows) expect(r.path).toBe(`${r.parent}/${r.name}`);
    });

    it("runs one tree change at a time per organization, in order", async () => {
      const root = seed("One", 3, 4);
      const d0 = area.repo.liveChild(admin.organizationId, root.id, "d0")!;
      const leaf = area.repo.liveChild(admin.organizationId, d0.id, "f0")!;
      const tree = sliced(2);
      const first = tree.relocate(admin, root.id, { name: "First" });
      for (let i = 0; i < 1000 && pending() === 0; i++) await new Promise((r) => setImmediate(r));
      expect(pending()).toBe(1);
      // A rename deep inside, asked while the first move's subtree is being written, waits for it:
      // it is never seen while rows still have the first move's old path (-1: not seen before it answered).
      let done = false;
      const second = tree.relocate(admin, leaf.id, { name: "renamed" }).finally(() => {
        done = true;
      });
      let staleWhenSeen = -1;
      while (!done) {
        if (staleWhenSeen < 0 && area.repo.get(admin.organizationId, leaf.id)?.name === "renamed")
          staleWhenSeen = stale("/One");
        await new Promise((r) => setImmediate(r));
      }
      await Promise.all([first, second]);
      expect(staleWhenSeen).toBeLessThanOrEqual(0);
      expect(pending()).toBe(0);
      expect(pathOf(leaf.id)).toBe("/First/d0/renamed");
      const rows = db.$client
        .prepare(
          "SELECT path, name, (SELECT path FROM files p WHERE p.id = f.parent_id) AS parent FROM files f WHERE parent_id IS NOT NULL",
        )
        .all() as { path: string; name: string; parent: string }[];
      for (const r of rows) expect(r.path).toBe(`${r.parent}/${r.name}`);
    });

    it("moves a folder into another access root: every row it governed takes the new one", async () => {
      const root = seed("Shared", 4, 3);
      const nested = area.repo.liveChild(admin.organizationId, root.id, "d2")!;
      const privateDir = area.directories.create(admin, { name: "Private" }).file;
      const only = [{ subject_type: "user", subject_id: admin.userId, level: "manage" }];
      await area.grants.set(admin, { directory_id: privateDir.id, grants: only });
      // A folder inside with a list of its own keeps it, and so do the rows it governs.
      await area.grants.set(admin, { directory_id: nested.id, grants: only });
      await sliced(5).relocate(admin, root.id, { parentId: privateDir.id });
      const acl = db.$client
        .prepare(
          "SELECT f.acl_id AS acl, count(*) AS n FROM files f WHERE f.path LIKE '/Private/Shared%' GROUP BY f.acl_id ORDER BY n",
        )
        .all() as { acl: string | null; n: number }[];
      expect(acl).toEqual([
        { acl: nested.id, n: 2 + 2 * 3 },
        { acl: privateDir.id, n: 1 + 3 * (2 + 2 * 3) },
      ]);
    });

    it("gives a folder its own list and takes it back a few rows a transaction, the rows below governed by one list or the other throughout", async () => {
      const root = seed("Family", 5, 3);
      const below = 5 * (2 + 2 * 3);
      const nested = area.repo.liveChild(admin.organizationId, root.id, "d3")!;
      const only = [{ subject_type: "user", subject_id: admin.userId, level: "manage" }];
      await area.grants.set(admin, { directory_id: nested.id, grants: only });
      const jobs = createSubtreeJobs(db, {
        sliceRows: 3,
        dropList: (org, id) => {
          area.accessRepo.dropList(org, id);
          area.access.invalidate();
        },
      });
      const tree = createTree(
        db,
        area.repo,
        { maxCopyItems: 1000, maxPathLength: 4096, maxDepth: 64 },
        area.access,
        jobs,
      );
      const grants = createGrantsService({
        repo: area.repo,
        tree,
        access: area.access,
        accessRepo: area.accessRepo,
      });
      const governedBy = () =>
        db.$client
          .prepare(
            "SELECT acl_id AS acl, count(*) AS n FROM files WHERE path LIKE '/Family/%' GROUP BY acl_id ORDER BY n",
          )
          .all() as { acl: string | null; n: number }[];
      const lists = () =>
        (db.$client.prepare("SELECT folder_id AS id FROM access_lists").all() as { id: string }[]).map(
          (r) => r.id,
        );
      /** What each step of the change left, sampled between transactions until it answers. */
      const watch = async (change: Promise<unknown>) => {
        let done = false;
        void change.finally(() => {
          done = true;
        });
        const seen: { pending: number; acls: (string | null)[]; lists: string[] }[] = [];
        while (!done) {
          seen.push({ pending: pending(), acls: governedBy().map((g) => g.acl), lists: lists() });
          await new Promise((r) => setImmediate(r));
        }
        await change;
        return seen;
      };
      const nestedRows = 2 + 2 * 3;
      // Given its own list: the folder at once, the rows that inherited a few at a time.
      const set = await watch(grants.set(admin, { directory_id: root.id, grants: only }));
      expect(set.filter((s) => s.pending === 1).length).toBeGreaterThan(3);
      expect(set.some((s) => s.acls.includes(null) && s.acls.includes(root.id))).toBe(true);
      expect(pending()).toBe(0);
      expect(area.repo.get(admin.organizationId, root.id)!.acl_id).toBe(root.id);
      expect(governedBy()).toEqual([
        { acl: nested.id, n: nestedRows },
        { acl: root.id, n: below - nestedRows },
      ]);
      // Cleared: the rows below go back to the top's list, and the folder's list stays until none is left
      // with it (a row governed by a list that no longer exists is nobody's).
      const cleared = await watch(grants.clear(admin, { directory_id: root.id }));
      expect(cleared.filter((s) => s.pending === 1).length).toBeGreaterThan(3);
      for (const s of cleared) if (s.acls.includes(root.id)) expect(s.lists).toContain(root.id);
      expect(lists()).not.toContain(root.id);
      expect(lists()).toContain(nested.id);
      expect(governedBy()).toEqual([
        { acl: nested.id, n: nestedRows },
        { acl: null, n: below - nestedRows },
      ]);
    });

    it("finishes at the next start a cleared list a stop interrupted, and only then drops it", async () => {
      const root = seed("Kept", 3, 2);
      const only = [{ subject_type: "user", subject_id: admin.userId, level: "manage" }];
      await area.grants.set(admin, { directory_id: root.id, grants: only });
      // What a stop after a clear's first transaction leaves: the folder inherits, the rows below do not yet.
      db.$client.prepare("UPDATE files SET acl_id = NULL WHERE id = ?").run(root.id);
      createSubtreeJobs(db).begin(admin.organizationId, root.id, { kind: "grant", from: root.id, to: null });
      await restart();
      expect(pending()).toBe(0);
      expect(rowsWhere("path LIKE '/Kept%' AND acl_id IS NOT NULL")).toBe(0);
      expect(area.access.isRoot(admin.organizationId, root.id)).toBe(false);
    });

    it("deletes, restores and purges a folder a few rows a transaction: exactly its rows, each once", async () => {
      const root = seed("Old", 4, 3);
      const below = 4 * (2 + 2 * 3);
      const d1 = area.repo.liveChild(admin.organizationId, root.id, "d1")!;
      const earlier = area.repo.liveChild(admin.organizationId, d1.id, "f0")!;
      await area.files.remove(admin, earlier.id, { recursive: true });
      const file = await area.files.upload(admin, {
        name: "only-here.txt",
        parentId: d1.id,
        source: bytes("unique"),
      });
      const shared = await area.files.upload(admin, { name: "kept.txt", source: bytes("shared") });
      await area.files.upload(admin, { name: "copy.txt", parentId: d1.id, source: bytes("shared") });
      const tree = sliced(3);
      const trash = trashOf(tree);
      // Every live row below goes with the folder in one batch; the item deleted before keeps its own.
      expect(await tree.softDelete(admin, area.repo.get(admin.organizationId, root.id)!, true)).toBe(
        1 + below + 1,
      );
      expect(pending()).toBe(0);
      expect(rowsWhere("path LIKE '/Old%' AND is_deleted = 0")).toBe(0);
      const batch = area.repo.get(admin.organizationId, root.id, true)!.delete_batch;
      expect(rowsWhere("path LIKE '/Old%' AND delete_batch = ?", batch)).toBe(1 + below + 1);
      expect(area.repo.get(admin.organizationId, earlier.id, true)!.delete_batch).not.toBe(batch);
      // Restore brings back that batch, and not the item deleted before.
      expect((await trash.restore(admin, root.id)).path).toBe("/Old");
      expect(rowsWhere("path LIKE '/Old%' AND is_deleted = 0")).toBe(1 + below - 1 + 2);
      expect(area.repo.get(admin.organizationId, earlier.id, true)!.is_deleted).toBe(true);
      // Purge removes every row, bottom up, and the blobs nothing else uses.
      await tree.softDelete(admin, area.repo.get(admin.organizationId, root.id)!, true);
      await trash.purge(admin, root.id);
      expect(pending()).toBe(0);
      expect(rowsWhere("path LIKE '/Old%'")).toBe(0);
      expect(await area.blobs.has(file.hash)).toBe(false);
      expect((await area.files.openContent(admin, shared.id)).size).toBe(6);
    });

    it("reads a folder's subtree within a bound, counted before any row is read; directories only or to a depth when asked", async () => {
      const root = seed("Walk", 3, 2);
      await area.files.upload(admin, { name: "file.txt", parentId: root.id, source: bytes("x") });
      const walk = (opts: { max: number; dirs?: boolean; depth?: number }) =>
        area.tree.readableSubtree(admin, area.repo.get(admin.organizationId, root.id)!, opts);
      const all = (await walk({ max: 100 }))!;
      expect(all.length).toBe(1 + 3 * 6 + 1);
      expect(all[0]!.id).toBe(root.id);
      const seen = new Set<string>();
      for (const r of all) {
        if (r.id !== root.id) expect(seen.has(r.parent_id!)).toBe(true);
        seen.add(r.id);
      }
      expect((await walk({ max: all.length }))?.length).toBe(all.length);
      expect(await walk({ max: all.length - 1 })).toBeUndefined();
      expect((await walk({ max: 100, dirs: true }))!.length).toBe(all.length - 1);
      expect((await walk({ max: 100, depth: 1 }))!.map((r) => r.name).sort()).toEqual([
        "Walk",
        "d0",
        "d1",
        "d2",
        "file.txt",
      ]);
      // A deleted folder hides its subtree.
      const d0 = area.repo.liveChild(admin.organizationId, root.id, "d0")!;
      await area.files.remove(admin, d0.id, { recursive: true });
      expect((await walk({ max: 100 }))!.length).toBe(all.length - 6);
    });

    it("walks a big subtree in slices: other work runs between them (a zip or copy of 100k rows held the event loop ~0.8 s)", async () => {
      const root = seed("Sliced", 5, 300);
      const row = area.repo.get(admin.organizationId, root.id)!;
      let turns = 0;
      let walking = true;
      const tick = () => {
        if (!walking) return;
        turns++;
        setImmediate(tick);
      };
      setImmediate(tick);
      const rows = await area.tree.readableSubtree(admin, row, { max: 10_000 });
      walking = false;
      expect(rows?.length).toBe(1 + 5 * 602);
      // 3,011 rows: read in slices of at most 2,000 ids and 500 rows, each slice its own turn.
      expect(turns).toBeGreaterThanOrEqual(2);
    });

    it("purges a whole organization's tree, more top-level items than one round of jobs takes", async () => {
      seed("Deep", 3, 2);
      for (let i = 0; i < 300; i++) area.directories.create(admin, { name: `top${i}` });
      const file = await area.files.upload(admin, { name: "only.txt", source: bytes("only here") });
      await area.files.remove(admin, file.id, {});
      expect(rowsWhere("organization_id = ?", admin.organizationId)).toBeGreaterThan(300 + 3 * 6);
      await area.tree.purgeAll(admin.organizationId);
      expect(rowsWhere("organization_id = ?", admin.organizationId)).toBe(0);
      expect(pending()).toBe(0);
      expect(await area.blobs.has(file.hash)).toBe(false);
    });

    it("finishes at the next start a delete a stop interrupted", async () => {
      const root = seed("Half", 3, 2);
      db.$client
        .prepare("UPDATE files SET is_deleted = 1, delete_batch = 'b1', deleted_at = 'now' WHERE id = ?")
        .run(root.id);
      createSubtreeJobs(db).begin(admin.organizationId, root.id, { kind: "delete", batch: "b1", at: "now" });
      await restart();
      expect(pending()).toBe(0);
      expect(rowsWhere("path LIKE '/Half/%' AND delete_batch = 'b1' AND is_deleted = 1")).toBe(
        3 * (2 + 2 * 2),
      );
    });

    it("finishes at the next start a move a stop interrupted", async () => {
      const root = seed("Cut", 4, 3);
      // What a stop after the move's first transaction leaves: the folder renamed, its record, old paths below.
      db.$client.prepare("UPDATE files SET name = 'Whole', path = '/Whole' WHERE id = ?").run(root.id);
      createSubtreeJobs(db).begin(admin.organizationId, root.id, { kind: "move" });
      expect(stale("/Cut")).toBe(4 * (2 + 2 * 3));
      await restart();
      expect(pending()).toBe(0);
      expect(stale("/Cut")).toBe(0);
      expect(
        (
          db.$client.prepare("SELECT count(*) AS n FROM files WHERE path LIKE '/Whole/%'").get() as {
            n: number;
          }
        ).n,
      ).toBe(4 * (2 + 2 * 3));
    });

    it("refuses a move whose subtree would pass the depth limit, read before the move", async () => {
      const root = seed("Deep", 1, 1);
      const tree = createTree(
        db,
        area.repo,
        { maxCopyItems: 1000, maxPathLength: 4096, maxDepth: 3 },
        area.access,
      );
      const target = area.directories.create(admin, { name: "T" }).file;
      // /Deep/d0/sub/g0 is 3 levels below /Deep: under /T it would be 5 deep.
      await expect(tree.relocate(admin, root.id, { parentId: target.id })).rejects.toMatchObject({
        code: "VALIDATION",
      });
      expect(pathOf(root.id)).toBe("/Deep");
      expect(pending()).toBe(0);
    });
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
    await area.files.remove(admin, one.id);
    // Soft delete: the row is in the trash, the content stays.
    expect((await area.files.openContent(admin, two.id)).size).toBe(4);
    expect(blobCount()).toBe(1);
  });
});
