import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Db } from "../../src/db/client.ts";
import { LARGE_PLAN_MAX } from "../../src/domain/search/search.large.ts";
import type { Sql } from "../../src/domain/search/search.query.ts";
import { LARGE_FILE_BYTES } from "../../src/domain/search/search.query.ts";
import { createSearchRepo, DEFAULT_PLAN } from "../../src/domain/search/search.repo.ts";
import { parseSearchInput } from "../../src/domain/search/search.service.ts";
import { newId } from "../../src/platform/ids.ts";
import { ONLY_GENERAL } from "../helpers/plan-compare.ts";
import { closeTempDb, openTempDb } from "../helpers/temp-db.ts";
import { seedTree, softDeleteSome } from "../helpers/tree-seed.ts";

const GB = 1_000_000_000;

/**
 * The large-files plan (search.large.ts) must page exactly as the general
 * plan does: same rows, order and exact totals, under folder grants too.
 */
describe("large-files search plan", () => {
  let dir: string;
  let db: Db;
  const org = newId();
  const other = newId();

  beforeAll(() => {
    ({ dir, db } = openTempDb("attic-large-", [org, other]));
    // Terms in folder names and file names, accents and case on either side; sizes on both
    // sides of LARGE_FILE_BYTES and of 1 GB, with ties.
    const folders = [
      "/Movies/Cosmos (2019) [2160p]",
      "/Movies/Amélie",
      "/Backups/Zoë",
      "/TV/Dark – Season 01",
      "/Misc",
    ];
    const names = [
      "Cosmos part %d.mkv",
      "amelie %d.MKV",
      "disk %d.iso",
      "S01E%d.mp4",
      "notes %d.txt",
      "Zoë %d.mkv",
    ];
    const sizes = [
      LARGE_FILE_BYTES - 1,
      LARGE_FILE_BYTES,
      3 * LARGE_FILE_BYTES,
      GB,
      2 * GB,
      2 * GB,
      7 * GB,
      12_345,
    ];
    const entries = Array.from({ length: 400 }, (_, i) => ({
      path: `${folders[i % folders.length]}/${names[i % names.length]!.replace("%d", String(i % 53))}`,
      size: sizes[(i * 7) % sizes.length]!,
      created_at: new Date(Date.UTC(2021, 0, 1) + ((i * 104729) % 89) * 86_400_000).toISOString(),
    }));
    seedTree(
      db,
      org,
      entries.filter((e, i) => entries.findIndex((x) => x.path === e.path) === i),
    );
    seedTree(db, other, [{ path: "/Movies/Cosmos/theirs.mkv", size: 5 * GB }]);
    softDeleteSome(db, org, 30, 60);
  });
  afterAll(() => closeTempDb(dir, db));

  const large = () =>
    createSearchRepo(db, { ...DEFAULT_PLAN, span: false, dense: false, broad: false, folders: false });
  const general = () => createSearchRepo(db, ONLY_GENERAL);

  const big = String(LARGE_FILE_BYTES);
  const cases: Record<string, unknown>[] = [
    { q: "mkv", min_size: String(GB), sort_by: "size", limit: 1000 },
    { q: "mkv", min_size: String(GB), sort_by: "size", sort_order: "desc", limit: 7, offset: 3 },
    { q: "mkv", min_size: big, limit: 1000 },
    { q: "mkv", min_size: big, offset: 100_000 },
    { q: "cosmos 2160p", min_size: big, limit: 1000 },
    { q: "amelie", min_size: big, sort_order: "desc", limit: 1000 },
    { q: "AMÉLIE mkv", min_size: big, limit: 1000 },
    { q: "zoe", min_size: big, sort_by: "created_at", limit: 1000 },
    { q: "zo", min_size: big, sort_by: "updated_at", sort_order: "desc", limit: 1000 },
    { q: "s01", min_size: String(GB), max_size: String(3 * GB), limit: 1000 },
    { q: "disk", min_size: big, path: "/Backups", limit: 1000 },
    { q: "part", min_size: big, type: "directory", limit: 1000 },
    { q: "mkv", min_size: big, start_date: "2021-02-01", end_date: "2021-03-01", limit: 1000 },
    { q: "", min_size: String(2 * GB), sort_by: "size", limit: 1000 },
    { q: "nothing-like-it", min_size: big },
  ];

  it("gives the same pages and totals as the general plan", () => {
    const a = large();
    const b = general();
    for (const i of cases) {
      const spec = parseSearchInput(i);
      const x = a.page(org, spec, spec.limit, spec.offset);
      const y = b.page(org, spec, spec.limit, spec.offset);
      expect(x.plan, JSON.stringify(i)).toBe("large");
      expect(y.plan, JSON.stringify(i)).not.toBe("large");
      expect(x.total, JSON.stringify(i)).toBe(y.total);
      expect(x.ids, JSON.stringify(i)).toEqual(y.ids);
      expect(x.estimated).toBe(false);
    }
    const total = (i: Record<string, unknown>) => {
      const spec = parseSearchInput(i);
      return a.page(org, spec, spec.limit, spec.offset).total;
    };
    // The cases match something, accents and folder names included, and the minimum is a bound.
    expect(total({ q: "mkv", min_size: String(GB) })).toBeGreaterThan(20);
    expect(total({ q: "cosmos 2160p", min_size: big })).toBeGreaterThan(5);
    expect(total({ q: "AMÉLIE mkv", min_size: big })).toBeGreaterThan(5);
    expect(total({ q: "zoe", min_size: big })).toBeGreaterThan(5);
    expect(total({ q: "mkv", min_size: big })).toBeGreaterThan(total({ q: "mkv", min_size: String(GB) }));
  });

  it("leaves smaller minimums, tags, relevance, terms with '/' and too many large files to the other plans", () => {
    const a = large();
    const plan = (i: Record<string, unknown>) => {
      const spec = parseSearchInput(i);
      return a.page(org, spec, spec.limit, spec.offset).plan;
    };
    expect(plan({ q: "mkv", min_size: String(LARGE_FILE_BYTES - 1) })).not.toBe("large");
    expect(plan({ q: "mkv" })).not.toBe("large");
    expect(plan({ q: "mkv", min_size: big, sort_by: "relevance" })).not.toBe("large");
    expect(plan({ q: "Movies/Cosmos", min_size: big })).not.toBe("large");
    // More large files than the plan reads: the other plans answer, with the same rows.
    seedTree(
      db,
      org,
      Array.from({ length: LARGE_PLAN_MAX + 1 }, (_, n) => ({ path: `/Bulk/clip ${n}.mkv`, size: 2 * GB })),
    );
    try {
      const spec = parseSearchInput({ q: "cosmos", min_size: big });
      const x = a.page(org, spec, spec.limit, spec.offset);
      expect(x.plan).not.toBe("large");
      expect(x.total).toBe(general().page(org, spec, spec.limit, spec.offset).total);
    } finally {
      db.$client.prepare("DELETE FROM files WHERE organization_id = ? AND path LIKE '/Bulk%'").run(org);
    }
  });

  it("obeys folder grants and the organization", () => {
    const c = db.$client;
    c.prepare("UPDATE files SET acl_id = 'A' WHERE organization_id = ? AND path LIKE '/Movies/Cosmos%'").run(
      org,
    );
    c.prepare("UPDATE files SET acl_id = 'B' WHERE organization_id = ? AND path LIKE '/Backups%'").run(org);
    try {
      const acl: Sql = {
        sql: "(f.acl_id IS NULL OR f.acl_id IN (SELECT value FROM json_each(?)))",
        params: ['["A"]'],
      };
      for (const i of cases) {
        const spec = parseSearchInput(i);
        const x = large().page(org, spec, spec.limit, spec.offset, { acl });
        const y = general().page(org, spec, spec.limit, spec.offset, { acl });
        expect(x.plan).toBe("large");
        expect(x.total, JSON.stringify(i)).toBe(y.total);
        expect(x.ids, JSON.stringify(i)).toEqual(y.ids);
      }
      const spec = parseSearchInput({ q: "", min_size: big, path: "/Backups", limit: 1000 });
      expect(large().page(org, spec, 1000, 0, { acl }).total).toBe(0);
      expect(large().page(org, spec, 1000, 0).total).toBeGreaterThan(0);
      // The other organization's 5 GB film is never among this one's matches.
      const theirs = parseSearchInput({ q: "theirs", min_size: big });
      expect(large().page(org, theirs, 50, 0)).toMatchObject({ total: 0, plan: "large" });
      expect(large().page(other, theirs, 50, 0)).toMatchObject({ total: 1, plan: "large" });
    } finally {
      c.prepare("UPDATE files SET acl_id = NULL WHERE organization_id = ?").run(org);
    }
  });
});
