import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Db } from "../../src/db/client.ts";
import type { Sql } from "../../src/domain/search/search.query.ts";
import { createSearchRepo, DEFAULT_PLAN } from "../../src/domain/search/search.repo.ts";
import { parseSearchInput } from "../../src/domain/search/search.service.ts";
import { newId } from "../../src/platform/ids.ts";
import { expectSamePages, ONLY_GENERAL, totalOf } from "../helpers/plan-compare.ts";
import { closeTempDb, openTempDb } from "../helpers/temp-db.ts";
import { seedTree, softDeleteSome } from "../helpers/tree-seed.ts";

/**
 * The plan for common terms within a folder or a span of dates (search.subtree.ts) must page
 * exactly as the general plan does: same rows, order and exact totals,
 * under folder grants too.
 */
describe("folder-subtree search plan", () => {
  let dir: string;
  let db: Db;
  const org = newId();
  const other = newId();

  beforeAll(() => {
    ({ dir, db } = openTempDb("attic-subtree-", [org, other]));
    // A library where "e" and "x" are common everywhere and the filtered folders are small;
    // accents and case on both sides, folder names holding the terms, ties of names and sizes.
    const folders = [
      "/Photos/Été 2019",
      "/Photos/Été 2019/Plage",
      "/Photos/Xmas",
      "/Music/Zoë Keating",
      "/Music/Zoë Keating/Into the Trees",
      "/Docs/letters",
      "/Docs/exports",
      "/Backups/e",
    ];
    const names = [
      "IMG_%d.jpg",
      "Scène %d.png",
      "track %d.flac",
      "notes %d.TXT",
      "EXPORT %d.xlsx",
      "Éa %d",
      "z%d",
    ];
    const entries = Array.from({ length: 700 }, (_, i) => ({
      path: `${folders[i % folders.length]}/${names[i % names.length]!.replace("%d", String(i % 41))}`,
      size: ((i * 7919) % 13) * 1000,
      created_at: new Date(Date.UTC(2021, 0, 1) + ((i * 104729) % 97) * 86_400_000).toISOString(),
    }));
    seedTree(
      db,
      org,
      entries.filter((e, i) => entries.findIndex((x) => x.path === e.path) === i),
    );
    seedTree(db, other, ["/Photos/Été 2019/theirs e.jpg"]);
    softDeleteSome(db, org, 40, 70);
  });
  afterAll(() => closeTempDb(dir, db));

  // Considered at any number of matches here (the library is small): the folder's rows decide.
  const subtree = () =>
    createSearchRepo(db, {
      ...DEFAULT_PLAN,
      span: false,
      dense: false,
      broad: false,
      large: false,
      sizes: false,
      subtreeMinMatches: 1,
    });
  const general = () => createSearchRepo(db, ONLY_GENERAL);

  const cases: Record<string, unknown>[] = [
    { q: "e", path: "/Photos", limit: 1000 },
    { q: "e", path: "/Photos/Été 2019", sort_order: "desc", limit: 7, offset: 3 },
    { q: "E", path: "/Photos/Été 2019/Plage", limit: 1000 },
    { q: "e", path: "/Music", sort_by: "size", limit: 1000 },
    { q: "e", path: "/Music", sort_by: "size", sort_order: "desc", limit: 1000 },
    { q: "e", path: "/Music", sort_by: "created_at", limit: 1000 },
    { q: "x", path: "/Photos", sort_by: "updated_at", sort_order: "desc", limit: 1000 },
    { q: "e", path: "/Docs", sort_by: "relevance", limit: 1000 },
    { q: "é x", path: "/Docs", sort_by: "relevance", limit: 1000 },
    { q: "e x", path: "/Music", limit: 1000 },
    { q: "e", path: "/Photos", type: "directory", limit: 1000 },
    { q: "e", path: "/Docs", min_size: "2000", max_size: "9000", limit: 1000 },
    { q: "e", path: "/Docs", start_date: "2021-02-01", end_date: "2021-03-01", limit: 1000 },
    { q: "e", path: "/Backups/e", limit: 1000 },
    { q: "e", path: "/Photos", offset: 100_000 },
    { q: "qqq e", path: "/Photos" },
    // Without a path filter, a span of creation dates is the range read.
    { q: "e", start_date: "2021-02-01", end_date: "2021-03-01", limit: 1000 },
    { q: "e", start_date: "2021-02-01", limit: 5, offset: 3 },
    { q: "x", start_date: "2021-03-01", sort_by: "updated_at", sort_order: "desc", limit: 1000 },
    { q: "é x", end_date: "2021-01-20", sort_by: "relevance", limit: 1000 },
  ];

  it("gives the same pages and totals as the general plan", () => {
    const a = subtree();
    const b = general();
    for (const i of cases) {
      const spec = parseSearchInput(i);
      const x = a.page(org, spec, spec.limit, spec.offset);
      const y = b.page(org, spec, spec.limit, spec.offset);
      expect(y.plan, JSON.stringify(i)).toBe("general");
      if (i.q !== "qqq e") expect(x.plan, JSON.stringify(i)).toBe("subtree");
      expect(x.total, JSON.stringify(i)).toBe(y.total);
      expect(x.ids, JSON.stringify(i)).toEqual(y.ids);
      expect(x.estimated).toBe(false);
    }
    const total = (i: Record<string, unknown>) => {
      const spec = parseSearchInput(i);
      return a.page(org, spec, spec.limit, spec.offset).total;
    };
    // The cases match something: accents, case, folder names and the folder's own row included.
    expect(total({ q: "e", path: "/Photos" })).toBeGreaterThan(100);
    expect(total({ q: "E", path: "/Photos/Été 2019/Plage" })).toBeGreaterThan(50);
    expect(total({ q: "é x", path: "/Docs" })).toBeGreaterThan(10);
    expect(total({ q: "e", path: "/Backups/e" })).toBeGreaterThan(50);
    expect(total({ q: "e", path: "/Photos", type: "directory" })).toBe(2);
    expect(total({ q: "e", start_date: "2021-02-01", end_date: "2021-03-01" })).toBeGreaterThan(50);
  });

  it("leaves rare terms, big folders, tags, terms with '/' and searches without a path or dates to the other plans", () => {
    const plan = (i: Record<string, unknown>, options = {}) => {
      const spec = parseSearchInput(i);
      return createSearchRepo(db, {
        ...DEFAULT_PLAN,
        span: false,
        dense: false,
        broad: false,
        // Every folder here is small enough to be read whatever its terms (below).
        subtreeFewRows: 0,
        ...options,
      }).page(org, spec, spec.limit, spec.offset).plan;
    };
    // Too few matches for the plan to be worth its count (the default bound, at this size).
    expect(plan({ q: "e", path: "/Photos" })).not.toBe("subtree");
    expect(plan({ q: "e", path: "/Photos" }, { subtreeMinMatches: 1 })).toBe("subtree");
    // "track" is in fewer rows than the folder holds (by more than the plan's factor).
    expect(plan({ q: "track", path: "/" }, { subtreeMinMatches: 1 })).not.toBe("subtree");
    // The least common term decides: "zo" is in two folders' paths only.
    expect(plan({ q: "zo e", path: "/Music" }, { subtreeMinMatches: 1 })).not.toBe("subtree");
    expect(plan({ q: "e" }, { subtreeMinMatches: 1 })).not.toBe("subtree");
    expect(plan({ q: "Été/Plage", path: "/Photos" }, { subtreeMinMatches: 1 })).not.toBe("subtree");
    expect(plan({ q: "e", path: "/Photos", tags: newId() }, { subtreeMinMatches: 1 })).not.toBe("subtree");
  });

  it("reads a folder or a span of dates of few rows whatever its terms", () => {
    const few = createSearchRepo(db, {
      ...DEFAULT_PLAN,
      span: false,
      dense: false,
      broad: false,
      sizes: false,
    });
    const cases = [
      // No row was created in 2001, whatever the terms: the span is empty.
      { q: "e", end_date: "2001-01-01" },
      { q: "track", start_date: "2001-01-01", end_date: "2001-12-31" },
      { q: "zo e", path: "/Music", limit: 1000 },
      { q: "track", path: "/Music", sort_by: "size", limit: 1000 },
      // Without a path or dates, a range of sizes (every row here is empty).
      { q: "e", max_size: "0", sort_by: "name", sort_order: "desc", limit: 1000 },
      { q: "o zo", min_size: "1" },
    ];
    expectSamePages(few, general(), org, cases, { plan: "subtree" });
    expect(totalOf(few, org, { q: "track", path: "/Music" })).toBeGreaterThan(0);
    expect(totalOf(few, org, { q: "e", end_date: "2001-01-01" })).toBe(0);
    // Past the bound, the terms decide as before ("zo" is in two folders' paths only).
    const spec = parseSearchInput({ q: "zo e", path: "/Music" });
    const bounded = createSearchRepo(db, {
      ...DEFAULT_PLAN,
      span: false,
      dense: false,
      broad: false,
      subtreeFewRows: 10,
      subtreeMinMatches: 1,
    });
    expect(bounded.page(org, spec, spec.limit, spec.offset).plan).not.toBe("subtree");
  });

  it("obeys folder grants and the organization", () => {
    const c = db.$client;
    c.prepare(
      "UPDATE files SET acl_id = 'A' WHERE organization_id = ? AND path LIKE '/Photos/Été 2019/Plage%'",
    ).run(org);
    c.prepare("UPDATE files SET acl_id = 'B' WHERE organization_id = ? AND path LIKE '/Photos/Xmas%'").run(
      org,
    );
    try {
      const acl: Sql = {
        sql: "(f.acl_id IS NULL OR f.acl_id IN (SELECT value FROM json_each(?)))",
        params: ['["A"]'],
      };
      for (const i of cases) {
        const spec = parseSearchInput(i);
        const x = subtree().page(org, spec, spec.limit, spec.offset, { acl });
        const y = general().page(org, spec, spec.limit, spec.offset, { acl });
        expect(x.total, JSON.stringify(i)).toBe(y.total);
        expect(x.ids, JSON.stringify(i)).toEqual(y.ids);
      }
      const spec = parseSearchInput({ q: "e", path: "/Photos/Xmas", limit: 1000 });
      expect(subtree().page(org, spec, 1000, 0, { acl }).total).toBe(0);
      expect(subtree().page(org, spec, 1000, 0).total).toBeGreaterThan(0);
      // The other organization's file is never among this one's matches.
      const theirs = parseSearchInput({ q: "theirs e", path: "/Photos" });
      expect(subtree().page(org, theirs, 50, 0)).toMatchObject({ total: 0 });
      expect(subtree().page(other, theirs, 50, 0)).toMatchObject({ total: 1 });
      const theirsByDate = parseSearchInput({ q: "theirs e", start_date: "2000-01-01" });
      expect(subtree().page(org, theirsByDate, 50, 0)).toMatchObject({ total: 0 });
      expect(subtree().page(other, theirsByDate, 50, 0)).toMatchObject({ total: 1 });
    } finally {
      c.prepare("UPDATE files SET acl_id = NULL WHERE organization_id = ?").run(org);
    }
  });
});
