import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Db } from "../../src/db/client.ts";
import { organizations } from "../../src/db/schema.ts";
import { createAccessRepo } from "../../src/domain/access/access.repo.ts";
import { createAccess } from "../../src/domain/access/access.ts";
import { createSearchRepo, DEFAULT_PLAN } from "../../src/domain/search/search.repo.ts";
import { createSearchService, parseSearchInput } from "../../src/domain/search/search.service.ts";
import { newId } from "../../src/platform/ids.ts";
import { closeTempDb, openTempDb } from "../helpers/temp-db.ts";
import { seedTree, softDeleteSome, spreadDates } from "../helpers/tree-seed.ts";

/** The broad plan (search.broad.ts) must answer exactly what the general plan answers. */
describe("search plans agree", () => {
  let dir: string;
  let db: Db;
  const org = newId();
  const other = newId();

  beforeAll(() => {
    ({ dir, db } = openTempDb("attic-plan-", [org, other]));
    const names = ["IMG_%d.jpg", "img_%d.JPG", "Beach %d.jpg", "notes %d.txt", "Ärger %d.jpg", "zz %d.jpeg"];
    const entries = Array.from(
      { length: 600 },
      (_, i) => `/Photos/${names[i % names.length]!.replace("%d", String(i % 97))}`,
    );
    seedTree(db, org, [...new Set(entries)]);
    seedTree(db, other, ["/Theirs/other.jpg", "/Theirs/more.jpg"]);
    // Some deleted matches, which both plans must leave out.
    softDeleteSome(db, org, 20, 40);
    spreadDates(db);
    // A quarter of the files large (files_live_size_idx), the rest small.
    db.$client
      .prepare(
        "UPDATE files SET size = CASE WHEN rowid % 4 = 0 THEN 104857600 + (rowid % 7) * 1000 ELSE rowid % 13 END WHERE type = 'file'",
      )
      .run();
  });
  afterAll(() => closeTempDb(dir, db));

  it("gives the same pages and totals", () => {
    const broad = createSearchRepo(db, { ...DEFAULT_PLAN, broadMinMatches: 5, broadMaxWalk: 1e9 });
    const general = createSearchRepo(db, { ...DEFAULT_PLAN, broad: false, folders: false });
    for (const input of [
      { q: "jpg" },
      { q: "jpg", sort_order: "desc" },
      { q: "jpg", limit: 7, offset: 30 },
      { q: "img jpg", limit: 10, offset: 3 },
      { q: "jpg", offset: 10_000 },
      // A term also in folder paths: its rows, and the files of the folders holding it.
      { q: "photos", limit: 1000 },
      { q: "photos", limit: 20, offset: 7, sort_order: "desc" },
      {},
      { sort_order: "desc", limit: 30, offset: 100 },
      // Browsing by date or from the largest file walks that order's index.
      { sort_by: "updated_at", sort_order: "desc" },
      { sort_by: "updated_at", limit: 17, offset: 40 },
      { sort_by: "created_at", sort_order: "desc", limit: 30, offset: 5 },
      { sort_by: "size", sort_order: "desc", limit: 20, offset: 3 },
    ]) {
      const spec = parseSearchInput(input);
      const a = broad.page(org, spec, spec.limit, spec.offset);
      const b = general.page(org, spec, spec.limit, spec.offset);
      expect(a.plan, JSON.stringify(input)).toBe("broad");
      expect(b.plan).toBe("general");
      expect(a.total, JSON.stringify(input)).toBe(b.total);
      expect(a.ids, JSON.stringify(input)).toEqual(b.ids);
      expect(a.total).toBeGreaterThan(0);
    }
  });

  it("gives the same pages and totals under folder grants, subtracting what the viewer cannot read", () => {
    // Two access roots' worth of rows: the viewer reads "A" (and the top's list), not "B".
    const c = db.$client;
    c.prepare("UPDATE files SET acl_id = 'A' WHERE organization_id = ? AND name LIKE 'Beach%'").run(org);
    c.prepare("UPDATE files SET acl_id = 'B' WHERE organization_id = ? AND name GLOB 'IMG*'").run(org);
    try {
      const acl = {
        sql: "(f.acl_id IS NULL OR f.acl_id IN (SELECT value FROM json_each(?)))",
        params: ['["A"]'],
      };
      const broad = createSearchRepo(db, { ...DEFAULT_PLAN, broadMinMatches: 5, broadMaxWalk: 1e9 });
      const general = createSearchRepo(db, { ...DEFAULT_PLAN, broad: false, folders: false });
      for (const input of [
        { q: "jpg" },
        { q: "img jpg", limit: 10, offset: 3 },
        {},
        { q: "beach", limit: 5 },
        { sort_by: "updated_at", sort_order: "desc", limit: 25 },
      ]) {
        const spec = parseSearchInput(input);
        const a = broad.page(org, spec, spec.limit, spec.offset, { acl, hidden: ["B"] });
        const b = general.page(org, spec, spec.limit, spec.offset, { acl });
        const counted = broad.page(org, spec, spec.limit, spec.offset, { acl });
        expect(a.plan, JSON.stringify(input)).toBe("broad");
        expect(a.total, JSON.stringify(input)).toBe(b.total);
        expect(counted.total, JSON.stringify(input)).toBe(b.total);
        expect(a.ids, JSON.stringify(input)).toEqual(b.ids);
      }
      // The hidden rows really are left out: "img" (lower case) remains, "IMG" under B does not.
      const all = general.page(org, parseSearchInput({ q: "img" }), 1000, 0);
      const seen = general.page(org, parseSearchInput({ q: "img" }), 1000, 0, { acl });
      expect(seen.total).toBeLessThan(all.total);
      expect(seen.total).toBeGreaterThan(0);
    } finally {
      c.prepare("UPDATE files SET acl_id = NULL WHERE organization_id = ?").run(org);
    }
  });

  it("gives up a walk that finds its matches gathered late in the name order, for the general plan", () => {
    // Matches all at the end of the name order ("zz…"), after many rows that do not match.
    const late = newId();
    const now = new Date().toISOString();
    db.insert(organizations).values({ id: late, name: late, created_at: now, updated_at: now }).run();
    seedTree(db, late, [
      ...Array.from({ length: 300 }, (_, i) => `/Late/a ${String(i).padStart(3, "0")}.txt`),
      ...Array.from({ length: 40 }, (_, i) => `/Late/zz match ${i}.jpg`),
      ...Array.from({ length: 40 }, (_, i) => `/Late/m ${i} spread.txt`),
    ]);
    const bounded = createSearchRepo(db, {
      ...DEFAULT_PLAN,
      broadMinMatches: 5,
      broadMaxWalk: 1e9,
      broadMinBound: 16,
    });
    const unbounded = createSearchRepo(db, { ...DEFAULT_PLAN, broadMinMatches: 5, broadMaxWalk: 1e9 });
    const general = createSearchRepo(db, { ...DEFAULT_PLAN, broad: false, folders: false });
    const run = (repo: typeof general, input: Record<string, unknown>) => {
      const spec = parseSearchInput(input);
      return repo.page(late, spec, spec.limit, spec.offset);
    };
    for (const [input, plan] of [
      // Ascending, the walk would read the 300 "a …" rows first: past its bound, the general plan.
      [{ q: "match", limit: 2 }, "general"],
      [{ q: "match", limit: 1, offset: 1 }, "general"],
      // Descending, the matches come first; and words spread over the order fill the page in time.
      [{ q: "match", limit: 2, sort_order: "desc" }, "broad"],
      [{ q: "txt", limit: 2 }, "broad"],
      [{ q: "txt", limit: 3, offset: 5, sort_order: "desc" }, "broad"],
    ] as const) {
      const a = run(bounded, input);
      const b = run(general, input);
      expect(a.plan, JSON.stringify(input)).toBe(plan);
      expect(run(unbounded, input).plan, JSON.stringify(input)).toBe("broad");
      expect(a.total, JSON.stringify(input)).toBe(b.total);
      expect(a.ids, JSON.stringify(input)).toEqual(b.ids);
      expect(a.ids.length, JSON.stringify(input)).toBeGreaterThan(0);
    }
    // The bound follows the rows: once the matches lead the order, the walk finds them in time.
    seedTree(
      db,
      late,
      Array.from({ length: 40 }, (_, i) => `/Late/0 match ${i}.jpg`),
    );
    const first = run(bounded, { q: "match", limit: 2 });
    expect(first.plan).toBe("broad");
    expect(first.ids).toEqual(run(general, { q: "match", limit: 2 }).ids);
  });

  it("counts a browse's total again once the library changes", () => {
    const repo = createSearchRepo(db, { ...DEFAULT_PLAN, broadMinMatches: 5, broadMaxWalk: 1e9 });
    const browse = parseSearchInput({ sort_by: "updated_at", sort_order: "desc" });
    const before = repo.page(org, browse, 10, 0);
    expect(before.plan).toBe("broad");
    seedTree(db, org, ["/Photos/added later.jpg"]);
    const after = repo.page(org, browse, 10, 0);
    expect(after.total).toBe(before.total + 1);
    // The newest file first: the one just added ("now", after every spread date).
    expect(after.ids[0]).not.toBe(before.ids[0]);
    db.$client.prepare("DELETE FROM files WHERE organization_id = ? AND name = 'added later.jpg'").run(org);
    expect(repo.page(org, browse, 10, 0).total).toBe(before.total);
  });

  it("falls back to the general plan for sparse matches and filtered searches", () => {
    const repo = createSearchRepo(db, { ...DEFAULT_PLAN, broadMinMatches: 5 });
    const sparse = parseSearchInput({ q: "IMG_5.jpg" });
    expect(repo.page(org, sparse, 50, 0).plan).toBe("general");
    const filtered = parseSearchInput({ q: "jpg", type: "file" });
    expect(repo.page(org, filtered, 50, 0).plan).toBe("general");
    // Two terms of which one is also in folder paths: the words' rows and runs intersected
    // (search-runs.test.ts), else the folder-terms plan (search-folders.test.ts).
    const mixed = repo.page(org, parseSearchInput({ q: "photos beach" }), 50, 0);
    expect(mixed.plan).toBe("runs");
    const withoutRuns = createSearchRepo(db, { ...DEFAULT_PLAN, broadMinMatches: 5, runs: false });
    expect(withoutRuns.page(org, parseSearchInput({ q: "photos beach" }), 50, 0)).toMatchObject({
      plan: "folders",
      total: mixed.total,
      ids: mixed.ids,
    });
    expect(mixed.total).toBeGreaterThan(5);
    // Browsing from the largest file, past the large ones (the size index holds no others).
    const general = createSearchRepo(db, { ...DEFAULT_PLAN, broad: false, folders: false });
    const past = parseSearchInput({ sort_by: "size", sort_order: "desc", offset: 120, limit: 100 });
    const page = repo.page(org, past, past.limit, past.offset);
    expect(page.plan).toBe("general");
    expect(page.ids).toEqual(general.page(org, past, past.limit, past.offset).ids);
    expect(page.ids).toHaveLength(100);
    // Smallest first: no index holds that order.
    expect(repo.page(org, parseSearchInput({ sort_by: "size" }), 50, 0).plan).toBe("general");
  });

  /** A user who may read everything, for the service. */
  const reader = () => ({
    userId: "u",
    username: "u",
    organizationId: org,
    permissions: ["file:read"],
    isInstanceAdmin: false,
    via: "jwt" as const,
  });

  it("answers in the server's thread, once told why, when no search thread can start", async () => {
    const actor = reader();
    const failures: Error[] = [];
    const service = createSearchService({
      db,
      access: createAccess(createAccessRepo(db)),
      threads: {
        file: join(dir, "no-such.db"),
        threads: 2,
        cacheKib: 1024,
        idleMs: 60_000,
        perCaller: 4,
        maxWaiting: 8,
        onFailure: (err) => failures.push(err),
      },
    });
    try {
      const expected = createSearchRepo(db).page(org, parseSearchInput({ q: "photos" }), 50, 0);
      for (let i = 0; i < 3; i++) {
        const page = await service.search(actor, { q: "photos" });
        expect(page.total).toBe(expected.total);
        expect(page.files.map((f) => f.id)).toEqual(expected.ids);
      }
      expect(failures).toHaveLength(1);
    } finally {
      await service.close();
    }
  });

  it.each([
    ["in the server's thread", false],
    ["on a search thread", true],
  ])("streams the same window as one search answers, in batches (%s)", async (_, threaded) => {
    const actor = reader();
    const service = createSearchService({
      db,
      access: createAccess(createAccessRepo(db)),
      threads: threaded
        ? { file: db.$client.name, threads: 1, cacheKib: 2048, idleMs: 60_000, perCaller: 4, maxWaiting: 8 }
        : undefined,
    });
    const input = { q: "photos", limit: 1000, offset: 5 };
    try {
      const page = await service.search(actor, input);
      expect(page.files.length).toBeGreaterThan(400);
      const streamed: string[] = [];
      for await (const f of service.stream(actor, input)) streamed.push(f.id);
      expect(streamed).toEqual(page.files.map((f) => f.id));
      expect(() => service.stream({ ...actor, permissions: [] }, input)).toThrow(/permission/);
    } finally {
      await service.close();
    }
  });
});
