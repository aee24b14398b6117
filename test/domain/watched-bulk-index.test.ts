import { createHash } from "node:crypto";
import {
  mkdirSync,
  mkdtempSync,
  readdirSync,
  realpathSync,
  renameSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { movesWatch, withoutMoves } from "../../src/db/change-watch.ts";
import { CACHE_KIB, type Db, openDb, writeTransaction } from "../../src/db/client.ts";
import { rowIndexer } from "../../src/db/search-index.ts";
import type { AccessView } from "../../src/domain/access/access.ts";
import { createFilesRepo } from "../../src/domain/files/files.repo.ts";
import { excluder } from "../../src/domain/watched/exclude.ts";
import { hashPending } from "../../src/domain/watched/hasher.ts";
import { newMovePool } from "../../src/domain/watched/moves.ts";
import { type DirTask, newStats, type ScanOptions } from "../../src/domain/watched/scan-types.ts";
import { syncTree } from "../../src/domain/watched/scanner.ts";
import { countFiles, createFilesPager, dirRels } from "../../src/domain/watched/slices.ts";
import { createWatchedRepo, type WatchedRepo } from "../../src/domain/watched/watched.repo.ts";
import { createLogger } from "../../src/log.ts";
import { newId, nowIso } from "../../src/platform/ids.ts";
import { insertOrganization } from "../helpers/tree-seed.ts";

/**
 * Scans write the search index in bulk (db/search-index.ts): the rows a write
 * transaction inserts are indexed together before commit, and before any
 * delete or rename in the same transaction. These scans run on a real
 * database and host tree; FTS5's own integrity check compares the index
 * with the rows after each step.
 */
describe("bulk search indexing of watched scans", () => {
  let dir: string;
  let host: string;
  let db: Db;
  let repo: WatchedRepo;
  const org = newId();
  const fid = newId();
  const mount = newId();

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), "attic-bulk-"));
    host = realpathSync(mkdtempSync(join(tmpdir(), "attic-bulk-host-")));
    db = openDb({ file: join(dir, "attic.db") });
    const c = db.$client;
    const now = nowIso();
    insertOrganization(c, org);
    c.prepare(
      `INSERT INTO watched_folders (id, organization_id, name, path, created_at, updated_at)
       VALUES (?, ?, 'Drive', ?, ?, ?)`,
    ).run(fid, org, host, now, now);
    const { lastInsertRowid } = c
      .prepare(
        `INSERT INTO files (id, organization_id, name, path, type, mime_type, watched_folder_id, host_rel_path,
           created_at, updated_at, accessed_at)
         VALUES (?, ?, 'Drive', '/Drive', 'directory', 'inode/directory', ?, '', ?, ?, ?)`,
      )
      .run(mount, org, fid, now, now, now);
    rowIndexer(c)([lastInsertRowid]);
    // The scan writer's thread whatever this machine's CPUs (it is used where there are two or more).
    repo = createWatchedRepo(db, { scanThread: true });
  });
  afterEach(() => {
    db.$client.close();
    rmSync(dir, { recursive: true, force: true });
    rmSync(host, { recursive: true, force: true });
  });

  const write = (rel: string, content = "x") => {
    mkdirSync(join(host, rel, ".."), { recursive: true });
    writeFileSync(join(host, rel), content);
  };
  const root = (): DirTask => ({
    rel: "",
    id: mount,
    path: "/Drive",
    knownMtime: null,
    isNew: false,
    acl: null,
  });
  const options = (extra: Partial<ScanOptions> = {}): ScanOptions => ({
    full: true,
    recurse: "all",
    excluded: excluder([], false),
    stats: newStats(),
    ...extra,
  });
  const scan = (tasks: DirTask[] = [root()], extra: Partial<ScanOptions> = {}) =>
    syncTree(
      repo,
      {
        folderId: fid,
        organizationId: org,
        ownerId: null,
        root: host,
        local: true,
        limits: { maxPathLength: 4096, maxDepth: 64 },
      },
      tasks,
      options(extra),
    );
  const integrity = () =>
    db.$client.prepare("INSERT INTO files_fts(files_fts, rank) VALUES ('integrity-check', 1)").run();
  const matches = (q: string) =>
    (
      db.$client
        .prepare(
          "SELECT f.path FROM files_fts JOIN files f ON f.rowid = files_fts.rowid WHERE files_fts MATCH ?",
        )
        .all(`"${q}"`) as { path: string }[]
    )
      .map((r) => r.path)
      .sort();
  /** The `n` of a one-row count statement. */
  const countOf = (sql: string, ...params: unknown[]) =>
    (db.$client.prepare(sql).get(...params) as { n: number }).n;
  const view = (top: AccessView["top"]): AccessView => ({
    top,
    levels: new Map(),
    atLeast: { 1: "[]", 2: "[]", 3: "[]" },
    unreadable: [],
  });
  const everything = view(3);
  const nothing = view(0);
  /** Live file rows of the folder, in one statement (slices.ts counts the same in slices). */
  const fileRows = () =>
    countOf(
      "SELECT count(*) AS n FROM files WHERE watched_folder_id = ? AND type = 'file' AND is_deleted = 0",
      fid,
    );
  /** A scan's new file row directly under the mount. */
  const entry = (name: string) => ({
    id: newId(),
    organization_id: org,
    owner_id: null,
    parent_id: mount,
    name,
    path: `/Drive/${name}`,
    type: "file" as const,
    size: 1,
    mime_type: "image/jpeg",
    watched_folder_id: fid,
    host_rel_path: name,
    host_mtime_ms: 1,
    now: nowIso(),
    updated_at: nowIso(),
    acl_id: null,
  });
  /** A file row under the mount that no scan wrote, inserted as an upload into the folder is (files.repo.ts). */
  const uploadedUnderMount = (name: string) => {
    const now = nowIso();
    createFilesRepo(db).insert({
      id: newId(),
      organization_id: org,
      parent_id: mount,
      name,
      path: `/Drive/${name}`,
      type: "file",
      mime_type: "text/plain",
      created_at: now,
      updated_at: now,
      accessed_at: now,
    });
  };

  it("checkpoints the log on the checkpointer's thread, and leaves it copied when the scan ends", async () => {
    for (let i = 0; i < 4000; i++) write(`Big/${i % 40}/file ${i}.txt`, "");
    await scan();
    expect(fileRows()).toBe(4000);
    expect(repo.checkpointer?.completed).toBeGreaterThan(0);
    // The scan's last checkpoint copied every frame: the next write on the connection starts the log over.
    db.$client.prepare("UPDATE files SET updated_at = ? WHERE id = ?").run(nowIso(), mount);
    const [wal] = db.$client.pragma("wal_checkpoint(PASSIVE)") as { log: number }[];
    expect(wal?.log).toBeLessThan(20);
  });

  it("writes a big scan on the scan writer's thread, and ends the thread with the scan", async () => {
    for (let i = 0; i < 3000; i++) write(`Photos/${i % 30}/IMG_${i}.jpg`, "");
    const stats = newStats();
    await scan([root()], { stats });
    expect(repo.scanThread?.completed).toBeGreaterThan(0);
    expect(repo.scanThread?.running).toBe(false);
    expect(fileRows()).toBe(3000);
    // 3000 files and 31 directories inserted, 32 directories' mtimes stored (the mount's too).
    expect(stats.written).toBe(3000 + 31 + 32);
    expect(() => integrity()).not.toThrow();
    expect(matches("IMG_2999")).toEqual(["/Drive/Photos/29/IMG_2999.jpg"]);
    // The rows carry what the walk queued (parents, paths, host paths, mtimes of directories).
    const dirs = countOf(
      "SELECT count(*) AS n FROM files WHERE watched_folder_id = ? AND type = 'directory' AND host_mtime_ms IS NOT NULL",
      fid,
    );
    expect(dirs).toBe(32);
    const orphans = countOf(
      `SELECT count(*) AS n FROM files f WHERE f.watched_folder_id = ? AND f.host_rel_path <> ''
         AND NOT EXISTS (SELECT 1 FROM files p WHERE p.id = f.parent_id AND p.path || '/' || f.name = f.path)`,
      fid,
    );
    expect(orphans).toBe(0);
  });

  it("counts files and lists directories in slices, the same as one statement", async () => {
    for (let i = 0; i < 300; i++) write(`Music/${i % 12}/${i % 5 === 0 ? "sub/" : ""}track ${i}.flac`, "");
    write("zz-last.txt");
    await scan();
    const all = db.$client
      .prepare(
        "SELECT host_rel_path AS rel FROM files WHERE watched_folder_id = ? AND type = 'directory' ORDER BY host_rel_path",
      )
      .all(fid)
      .map((r) => (r as { rel: string }).rel);
    expect(all.length).toBe(1 + 1 + 12 + 12);
    const files = db.$client
      .prepare(
        "SELECT id FROM files WHERE watched_folder_id = ? AND type = 'file' AND is_deleted = 0 ORDER BY host_rel_path",
      )
      .all(fid)
      .map((r) => (r as { id: string }).id);
    for (const size of [1, 7, 64, 10_000]) {
      expect(await countFiles(repo, fid, size)).toBe(301);
      expect(await dirRels(repo, fid, size)).toEqual(all);
      const readableFilesPage = createFilesPager(repo, movesWatch(db.$client), size);
      // A page of the readable files: the same as one ordered statement, whatever the slice size.
      for (const [offset, limit] of [
        [0, 50],
        [37, 10],
        [290, 50],
        [301, 5],
      ] as const) {
        const page = await readableFilesPage(fid, everything, { limit, offset });
        expect(page.total).toBe(301);
        expect(page.rows.map((r) => r.id)).toEqual(files.slice(offset, offset + limit));
      }
      expect(await readableFilesPage(fid, nothing, { limit: 5, offset: 0 })).toEqual({
        rows: [],
        total: 0,
      });
    }
    expect(fileRows()).toBe(301);
    expect(repo.hasFiles(fid)).toBe(true);
  });

  it("keeps a folder's file count for each set of grants until a row moves, then counts again", async () => {
    for (let i = 0; i < 40; i++) write(`Docs/${i}.txt`, "");
    await scan();
    const page = createFilesPager(repo, movesWatch(db.$client), 7);
    const first = { limit: 5, offset: 0 };
    expect((await page(fid, everything, first)).total).toBe(40);
    expect((await page(fid, nothing, first)).total).toBe(0);
    const doc = (n: number) =>
      (
        db.$client
          .prepare("SELECT id FROM files WHERE watched_folder_id = ? AND host_rel_path = ?")
          .get(fid, `Docs/${n}.txt`) as { id: string }
      ).id;
    // A write the watch is told moved nothing (as the hasher's are): the kept count stands.
    withoutMoves(db.$client, () =>
      db.$client.prepare("UPDATE files SET is_deleted = 1 WHERE id = ?").run(doc(0)),
    );
    expect((await page(fid, everything, first)).total).toBe(40);
    // Any other write: counted again, and the page read after it.
    db.$client.prepare("UPDATE files SET is_deleted = 1 WHERE id = ?").run(doc(1));
    const after = await page(fid, everything, { limit: 50, offset: 30 });
    expect(after.total).toBe(38);
    expect(after.rows).toHaveLength(8);
  });

  it("writes on the server's connection when the scan writer's thread is gone, with the same rows", async () => {
    repo.scanThread!.failed = new Error("no threads here");
    for (let i = 0; i < 3000; i++) write(`Photos/${i % 30}/IMG_${i}.jpg`, "");
    await scan();
    expect(repo.scanThread?.completed).toBe(0);
    expect(fileRows()).toBe(3000);
    expect(() => integrity()).not.toThrow();
    expect(matches("IMG_2999")).toEqual(["/Drive/Photos/29/IMG_2999.jpg"]);
  });

  it("fails the scan, not the server, when a batch on the thread fails", async () => {
    // A row the scan does not own holds the name its directory needs: the insert breaks the unique index.
    uploadedUnderMount("Taken");
    for (let i = 0; i < 3000; i++) write(`Taken/${i}.txt`, "");
    for (let i = 0; i < 3000; i++) write(`Later/${i % 50}/${i}.txt`, "");
    await expect(scan()).rejects.toThrow(/UNIQUE/);
    // The thread outlives a batch that failed: the transaction rolled back, the connection is fine.
    expect(repo.scanThread?.failed).toBeUndefined();
    // Nothing of the scan committed after the failure hides rows from the next quick rescan: no
    // directory has its mtime stored without every entry of it indexed.
    const dirs = db.$client
      .prepare(
        `SELECT d.host_rel_path AS rel, (SELECT count(*) FROM files c WHERE c.parent_id = d.id) AS n
         FROM files d WHERE d.watched_folder_id = ? AND d.type = 'directory' AND d.host_mtime_ms IS NOT NULL`,
      )
      .all(fid) as { rel: string; n: number }[];
    for (const d of dirs)
      expect(d.n, d.rel).toBe(readdirSync(join(host, d.rel)).length + (d.rel === "" ? 1 : 0));
    // The connection is usable and the next scan of a fixed tree goes through.
    rmSync(join(host, "Taken"), { recursive: true });
    for (let i = 0; i < 3000; i++) write(`Other/${i}.txt`, "");
    await scan();
    expect(fileRows()).toBe(6000);
  });

  it("refuses a writer's later ops once a transaction holding some of them failed; other writers go on", async () => {
    const thread = repo.scanThread!;
    const failing = thread.newWriter();
    const other = thread.newWriter();
    const dup = entry("dup.txt");
    const first = thread.send(
      [
        { k: "insert", row: dup },
        { k: "insert", row: { ...dup, name: "dup2.txt" } },
      ],
      0,
      true,
      failing,
    );
    await expect(first).rejects.toThrow(/UNIQUE/);
    // Its next ops would store a directory's mtime as if its children were in: refused, not applied.
    await expect(thread.send([{ k: "mtime", id: mount, mtimeMs: 42 }], 0, true, failing)).rejects.toThrow(
      /earlier write/,
    );
    await thread.send([{ k: "insert", row: entry("fine.txt") }], 0, true, other);
    expect(repo.mountRow(fid)?.knownMtime).toBeNull();
    expect(repo.byRel(fid, "dup.txt")).toBeUndefined();
    expect(repo.byRel(fid, "fine.txt")).toBeDefined();
    await thread.stop();
  });

  it("hashes small files in one read and big ones as a stream, the same bytes either way", async () => {
    const big = Buffer.alloc(300 * 1024 + 7, "ab");
    write("empty.txt", "");
    write("small.txt", "hello");
    write("edge.bin", "z".repeat(256 * 1024));
    write("big.bin", big.toString());
    for (let i = 0; i < 70; i++) write(`many/${i}.txt`, `${i}`);
    await scan();
    const n = await hashPending(repo, fid, host, {
      concurrency: 4,
      signal: new AbortController().signal,
      log: createLogger("silent"),
    });
    expect(n).toBe(74);
    const sha = (b: string | Buffer) => createHash("sha256").update(b).digest("hex");
    const hashOf = (rel: string) =>
      (
        db.$client
          .prepare("SELECT hash FROM files WHERE watched_folder_id = ? AND host_rel_path = ?")
          .get(fid, rel) as { hash: string }
      ).hash;
    expect(hashOf("empty.txt")).toBe(sha(""));
    expect(hashOf("small.txt")).toBe(sha("hello"));
    expect(hashOf("edge.bin")).toBe(sha("z".repeat(256 * 1024)));
    expect(hashOf("big.bin")).toBe(sha(big));
    expect(hashOf("many/69.txt")).toBe(sha("69"));
  });

  it("waits before each page of hashes while paused (a scan runs)", async () => {
    for (let i = 0; i < 70; i++) write(`p/${i}.txt`, `${i}`);
    await scan();
    let looks = 0;
    const unhashed = () =>
      countOf(
        "SELECT count(*) AS n FROM files WHERE watched_folder_id = ? AND type = 'file' AND hash = ''",
        fid,
      );
    const seen: number[] = [];
    const n = await hashPending(repo, fid, host, {
      concurrency: 4,
      signal: new AbortController().signal,
      log: createLogger("silent"),
      // Paused for the first three looks, then between the two pages (64 files, then 6).
      paused: () => {
        looks++;
        seen.push(unhashed());
        return looks <= 3 || looks === 5;
      },
    });
    expect(n).toBe(70);
    expect(seen.slice(0, 4)).toEqual([70, 70, 70, 70]);
    expect(seen[4]).toBe(6);
    expect(looks).toBeGreaterThanOrEqual(7);
    // Aborted while paused: nothing more is hashed.
    write("p/70.txt", "70");
    await scan();
    const stop = new AbortController();
    setTimeout(() => stop.abort(), 300);
    expect(
      await hashPending(repo, fid, host, {
        concurrency: 4,
        signal: stop.signal,
        log: createLogger("silent"),
        paused: () => true,
      }),
    ).toBe(0);
    expect(unhashed()).toBe(1);
  });

  it("keeps the small page cache while a scan or hashing holds it, whichever lets go last", () => {
    const cache = () => db.$client.pragma("cache_size", { simple: true });
    const autoCheckpoint = () => db.$client.pragma("wal_autocheckpoint", { simple: true });
    const scanning = repo.holdScanSettings();
    expect([cache(), autoCheckpoint()]).toEqual([-16_384, 40_000]);
    const hashing = repo.holdSmallCache();
    scanning();
    scanning(); // a second release of the same hold changes nothing
    expect([cache(), autoCheckpoint()]).toEqual([-16_384, 1000]);
    const again = repo.holdScanSettings();
    hashing();
    expect(cache()).toBe(-16_384);
    again();
    expect([cache(), autoCheckpoint()]).toEqual([-CACHE_KIB, 1000]);
  });

  it("indexes every scanned row, and follows renames, moves, deletions and replaced entries", async () => {
    for (let i = 0; i < 300; i++) write(`Photos/Trip ${i % 7}/Zoë ${i}.jpg`, `${i}`);
    write("Music/Björk/Jóga.flac");
    await scan();
    expect(() => integrity()).not.toThrow();
    expect(matches("zoe 12")).toContain("/Drive/Photos/Trip 5/Zoë 12.jpg");
    expect(matches("joga")).toEqual(["/Drive/Music/Björk/Jóga.flac"]);
    // Scans checkpoint the WAL themselves while they write, with a smaller page cache; the connection's own
    // settings are back after.
    expect(db.$client.pragma("wal_autocheckpoint", { simple: true })).toBe(1000);
    expect(db.$client.pragma("cache_size", { simple: true })).toBe(-CACHE_KIB);

    // A directory replaced by a file of the same name, a file by a directory, a rename, a removal.
    rmSync(join(host, "Music/Björk"), { recursive: true });
    write("Music/Björk", "now a file");
    rmSync(join(host, "Photos/Trip 0/Zoë 0.jpg"));
    mkdirSync(join(host, "Photos/Trip 0/Zoë 0.jpg"));
    write("Photos/Trip 0/Zoë 0.jpg/inside.txt");
    renameSync(join(host, "Photos/Trip 1"), join(host, "Photos/Voyage"));
    await scan();
    expect(() => integrity()).not.toThrow();
    expect(matches("joga")).toEqual([]);
    expect(matches("inside")).toEqual(["/Drive/Photos/Trip 0/Zoë 0.jpg/inside.txt"]);
    // Files are indexed by name, folders by path too (migration 0011).
    expect(matches("voyage")).toEqual(["/Drive/Photos/Voyage"]);
    expect(matches("zoe").filter((p) => p.startsWith("/Drive/Photos/Voyage/")).length).toBe(43);
    expect(matches("trip 1")).toEqual([]);

    // A live sync pairs a moved file with its old row (an update of name and path in the same batch).
    const photos = repo.byRel(fid, "Photos")!;
    renameSync(join(host, "Photos/Trip 2/Zoë 2.jpg"), join(host, "Photos/Zoë moved.jpg"));
    write("Photos/New album/Fresh.jpg");
    await scan(
      [
        { rel: "Photos", id: photos.id, path: photos.path, knownMtime: null, isNew: false, acl: null },
        {
          rel: "Photos/Trip 2",
          id: repo.byRel(fid, "Photos/Trip 2")!.id,
          path: "/Drive/Photos/Trip 2",
          knownMtime: null,
          isNew: false,
          acl: null,
        },
      ],
      { recurse: "new", moves: newMovePool() },
    );
    expect(() => integrity()).not.toThrow();
    expect(matches("moved")).toEqual(["/Drive/Photos/Zoë moved.jpg"]);
    expect(matches("fresh")).toEqual(["/Drive/Photos/New album/Fresh.jpg"]);
  });

  it("indexes a directory of more entries than the writer takes at a time, and a rename inside it", async () => {
    // 3000 new entries: they reach the writer in pieces (FLUSH_EVERY), so rows are written while the
    // directory's later entries are still being made, instead of all 3000 queued first. On the server's
    // connection, where that is seen in `written` (the thread commits later, with two transactions in flight).
    repo.scanThread!.failed = new Error("written here");
    for (let i = 0; i < 3000; i++) write(`Big/file ${i}.txt`, `${i}`);
    const stats = newStats();
    let writtenMidway = false;
    let finished = false;
    const observer = (async () => {
      while (!finished) {
        if (stats.written > 0 && stats.indexed < 3000) writtenMidway = true;
        await new Promise((r) => setImmediate(r));
      }
    })();
    await scan([root()], { stats });
    finished = true;
    await observer;
    expect(writtenMidway).toBe(true);
    expect(stats.indexed).toBe(3000);
    expect(() => integrity()).not.toThrow();
    const big = repo.byRel(fid, "Big")!;
    expect(repo.children(org, big.id)).toHaveLength(3000);
    expect(matches("file 2999")).toEqual(["/Drive/Big/file 2999.txt"]);

    // A rename (same size and mtime) keeps its row; a new file next to it is a new row.
    const before = repo.byRel(fid, "Big/file 7.txt")!;
    renameSync(join(host, "Big/file 7.txt"), join(host, "Big/renamed 7.txt"));
    write("Big/extra.txt");
    await scan();
    expect(() => integrity()).not.toThrow();
    expect(repo.byRel(fid, "Big/renamed 7.txt")?.id).toBe(before.id);
    expect(repo.children(org, big.id)).toHaveLength(3001);
    expect(matches("renamed 7")).toEqual(["/Drive/Big/renamed 7.txt"]);
    expect(matches("extra")).toEqual(["/Drive/Big/extra.txt"]);
  });

  it("indexes rows inserted and then removed or renamed in the same transaction", () => {
    const row = (name: string, type: "file" | "directory", parent = mount, prefix = "/Drive") => ({
      id: newId(),
      organization_id: org,
      owner_id: null,
      parent_id: parent,
      name,
      path: `${prefix}/${name}`,
      type,
      size: 1,
      mime_type: type === "file" ? "image/jpeg" : "inode/directory",
      watched_folder_id: fid,
      host_rel_path: `${prefix.slice("/Drive".length + 1)}${prefix === "/Drive" ? "" : "/"}${name}`,
      host_mtime_ms: 1,
      now: nowIso(),
      updated_at: nowIso(),
      acl_id: null,
    });
    repo.bulkTransaction(() => {
      const album = row("Album", "directory");
      repo.apply({ k: "insert", row: album });
      repo.apply({ k: "insert", row: row("Kept.jpg", "file", album.id, "/Drive/Album") });
      repo.apply({ k: "insert", row: row("Gone.jpg", "file") });
      repo.apply({ k: "delete", folderId: fid, rel: "Gone.jpg" });
      const renamed = row("Before.jpg", "file");
      repo.apply({ k: "insert", row: renamed });
      repo.apply({
        k: "move",
        move: {
          id: renamed.id,
          parentId: mount,
          name: "After.jpg",
          path: "/Drive/After.jpg",
          rel: "After.jpg",
          mime: "image/jpeg",
          acl: null,
        },
      });
      repo.apply({ k: "insert", row: row("Last.jpg", "file") });
    });
    expect(() => integrity()).not.toThrow();
    expect(matches("kept")).toEqual(["/Drive/Album/Kept.jpg"]);
    expect(matches("gone")).toEqual([]);
    expect(matches("before")).toEqual([]);
    expect(matches("after")).toEqual(["/Drive/After.jpg"]);
    expect(matches("last")).toEqual(["/Drive/Last.jpg"]);
  });

  it("indexes a row a scan inserts outside a bulk transaction at once", () => {
    repo.insertEntry(entry("Alone.jpg"));
    expect(matches("alone")).toEqual(["/Drive/Alone.jpg"]);
    expect(() => integrity()).not.toThrow();
  });

  it("rolls a failed bulk transaction back whole; a row inserted after it by the files repo is indexed", () => {
    expect(() =>
      repo.bulkTransaction(() => {
        repo.apply({ k: "insert", row: entry("Rolled back.jpg") });
        throw new Error("disk went away");
      }),
    ).toThrow("disk went away");
    expect(matches("rolled back")).toEqual([]);
    uploadedUnderMount("Uploaded.txt");
    expect(matches("uploaded")).toEqual(["/Drive/Uploaded.txt"]);
    expect(() => integrity()).not.toThrow();
  });

  it("lets a write of the server's connection through in the middle of the thread's long transaction", async () => {
    const thread = repo.scanThread!;
    const c = db.$client;
    await thread.send([{ k: "mtime", id: mount, mtimeMs: 0 }], 0, true);
    // A backlog of a million row writes, one transaction by its budget: seconds of holding the write
    // lock. The mount's mtime counts them, so what a read sees tells how far the thread had committed.
    const MESSAGES = 4000;
    const PER = 250;
    const backlog = Array.from({ length: MESSAGES }, (_, m) =>
      thread.send(
        Array.from({ length: PER }, (_, i) => ({ k: "mtime" as const, id: mount, mtimeMs: m * PER + i + 1 })),
        600_000,
      ),
    );
    const last = MESSAGES * PER;
    const mtime = c.prepare("SELECT host_mtime_ms FROM files WHERE id = ?").pluck();
    await new Promise((r) => setTimeout(r, 100));
    // Without the thread giving way, this write waits out its whole transaction, and then reads the
    // last mtime; here it goes through in the middle of the backlog.
    c.pragma("busy_timeout = 60000");
    const rename = c.prepare("UPDATE watched_folders SET name = ? WHERE id = ?");
    expect(rename.run("Renamed meanwhile", fid).changes).toBe(1);
    expect(mtime.get(mount)).toBeLessThan(last);
    // An immediate transaction (the file tree's writes) takes the lock at BEGIN, announced as well.
    await new Promise((r) => setTimeout(r, 50));
    const seen = writeTransaction(c, () => {
      rename.run("Renamed twice", fid);
      return mtime.get(mount) as number;
    });
    expect(seen).toBeLessThan(last);
    c.pragma("busy_timeout = 5000");
    const done = await Promise.allSettled(backlog);
    expect(done.every((d) => d.status === "fulfilled")).toBe(true);
    expect(c.prepare("SELECT name FROM watched_folders WHERE id = ?").pluck().get(fid)).toBe("Renamed twice");
    expect(mtime.get(mount)).toBe(last);
  }, 120_000);

  it("deletes a folder's rows a few at a time from the deepest up: no delete takes a subtree with it", async () => {
    for (const rel of ["a/b/c/1.txt", "a/b/2.txt", "a/3.txt", "d/4.txt", "d e/5.txt"]) write(rel);
    await scan();
    const rows = () => countOf("SELECT count(*) AS n FROM files WHERE watched_folder_id = ?", fid);
    const orphans = () =>
      countOf(
        "SELECT count(*) AS n FROM files f WHERE f.watched_folder_id = ? AND f.parent_id IS NOT NULL " +
          "AND NOT EXISTS (SELECT 1 FROM files p WHERE p.id = f.parent_id)",
        fid,
      );
    let left = rows();
    expect(left).toBe(1 + 10);
    // One row a call, each time exactly one: a directory deleted before its children would take them along.
    while (repo.deleteSome(fid, 1) > 0) {
      expect(rows()).toBe(--left);
      expect(orphans()).toBe(0);
    }
    expect(rows()).toBe(1);
  });
});
