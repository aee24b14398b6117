import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Db } from "../../src/db/client.ts";
import { createSearchRepo, DEFAULT_PLAN } from "../../src/domain/search/search.repo.ts";
import { parseSearchInput } from "../../src/domain/search/search.service.ts";
import { newId } from "../../src/platform/ids.ts";
import { ONLY_GENERAL } from "../helpers/plan-compare.ts";
import { closeTempDb, openTempDb } from "../helpers/temp-db.ts";
import { seedTree, softDeleteSome } from "../helpers/tree-seed.ts";

/**
 * The plan for text within a range of sizes (search.sizes.ts) must page
 * exactly as the general plan does: same rows, order and exact totals,
 * under folder grants too.
 */
describe("size-range search plan", () => {
  let dir: string;
  let db: Db;
  const org = newId();
  const other = newId();

  beforeAll(() => {
    ({ dir, db } = openTempDb("attic-sizes-", [org, other]));
    // Terms in folder names and file names, accents and case on either side; sizes spread over
    // many buckets (a range's edges fall inside buckets), with ties.
    const folders = ["/Music/Final Fantasy", "/Photos/Été 2019", "/Docs/final", "/Misc"];
    const names = ["track %d.flac", "IMG_%d.jpg", "Final report %d.pdf", "notes %d.txt", "été %d.jpg"];
    const entries = Array.from({ length: 1500 }, (_, i) => ({
      path: `${folders[i % folders.length]}/${names[i % names.length]!.replace("%d", String(i % 97))}`,
      size: (i * 7919) % 2000,
      created_at: new Date(Date.UTC(2021, 0, 1) + ((i * 104729) % 89) * 86_400_000).toISOString(),
    }));
    seedTree(
      db,
      org,
      entries.filter((e, i) => entries.findIndex((x) => x.path === e.path) === i),
    );
    seedTree(db, other, [{ path: "/Docs/final/theirs.pdf", size: 150 }]);
    softDeleteSome(db, org, 30, 60);
  });
  afterAll(() => closeTempDb(dir, db));

  // Every term's index matches counted as at least as many as the range's rows.
  const sizes = () =>
    createSearchRepo(db, { ...DEFAULT_PLAN, span: false, dense: false, broad: false, folders: false });
  const general = () => createSearchRepo(db, ONLY_GENERAL);

  const cases: Record<string, unknown>[] = [
    { q: "final", min_size: "100", max_size: "400", limit: 1000 },
    { q: "final", min_size: "100", max_size: "400", sort_order: "desc", limit: 7, offset: 3 },
    { q: "jpg", max_size: "150", sort_by: "size", limit: 1000 },
    { q: "été", min_size: "1000", max_size: "1100", sort_by: "size", sort_order: "desc", limit: 1000 },
    { q: "ete", min_size: "10", max_size: "120", sort_by: "relevance", limit: 1000 },
    { q: "report", min_size: "200", max_size: "300", sort_by: "created_at", limit: 1000 },
    { q: "track", min_size: "0", max_size: "99", sort_by: "updated_at", sort_order: "desc", limit: 1000 },
    { q: "final", min_size: "100", max_size: "300", path: "/Docs", limit: 1000 },
    { q: "report", min_size: "100", max_size: "400", type: "file", limit: 1000 },
    {
      q: "img",
      min_size: "5",
      max_size: "205",
      start_date: "2021-02-01",
      end_date: "2021-03-01",
      limit: 1000,
    },
    { q: "final", min_size: "100", max_size: "400", offset: 100_000 },
    { q: "ep", max_size: "120", limit: 1000 },
    { q: "nothing-like-it", min_size: "1" },
  ];

  it("gives the same pages and exact totals as the general plan", () => {
    const a = sizes();
    const b = general();
    for (const i of cases) {
      const spec = parseSearchInput(i);
      const x = a.page(org, spec, spec.limit, spec.offset);
      const y = b.page(org, spec, spec.limit, spec.offset);
      if (i.q !== "nothing-like-it") expect(x.plan, JSON.stringify(i)).toBe("sizes");
      expect(y.plan, JSON.stringify(i)).not.toBe("sizes");
      expect(x.total, JSON.stringify(i)).toBe(y.total);
      expect(x.ids, JSON.stringify(i)).toEqual(y.ids);
      expect(x.estimated).toBe(false);
    }
    const total = (i: Record<string, unknown>) => {
      const spec = parseSearchInput(i);
      return a.page(org, spec, spec.limit, spec.offset).total;
    };
    // The cases match something, accents and folder names included, and the range is a bound.
    expect(total({ q: "final", min_size: "100", max_size: "400" })).toBeGreaterThan(20);
    expect(total({ q: "été", min_size: "1000", max_size: "1100" })).toBeGreaterThan(5);
    expect(total({ q: "report", min_size: "200", max_size: "300" })).toBeGreaterThan(5);
    expect(total({ q: "final", min_size: "100", max_size: "400" })).toBeLessThan(total({ q: "final" }));
  });

  it("keeps to the viewer's folder grants", () => {
    const c = db.$client;
    c.prepare("UPDATE files SET acl_id = 'A' WHERE organization_id = ? AND path LIKE '/Docs/%'").run(org);
    try {
      const acl = {
        sql: "(f.acl_id IS NULL OR f.acl_id IN (SELECT value FROM json_each(?)))",
        params: ['["B"]'],
      };
      for (const i of [{ q: "final", min_size: "100", max_size: "400", limit: 1000 }]) {
        const spec = parseSearchInput(i);
        const x = sizes().page(org, spec, spec.limit, spec.offset, { acl });
        const y = general().page(org, spec, spec.limit, spec.offset, { acl });
        expect(x.plan).toBe("sizes");
        expect(x.ids).toEqual(y.ids);
        expect(x.total).toBe(y.total);
        expect(x.total).toBeLessThan(sizes().page(org, spec, spec.limit, spec.offset).total);
      }
    } finally {
      c.prepare("UPDATE files SET acl_id = NULL WHERE organization_id = ?").run(org);
    }
  });

  it("leaves wide ranges, large minimums, tags, several terms and terms with '/' to the other plans", () => {
    const plan = (i: Record<string, unknown>) => {
      const spec = parseSearchInput(i);
      return sizes().page(org, spec, spec.limit, spec.offset).plan;
    };
    // The range holds more rows than the term has index matches.
    expect(plan({ q: "report", min_size: "0" })).not.toBe("sizes");
    expect(plan({ q: "final", min_size: String(200 * 1024 * 1024) })).not.toBe("sizes");
    expect(plan({ q: "final", tags: newId(), min_size: "100" })).not.toBe("sizes");
    expect(plan({ q: "Docs/final", min_size: "100", max_size: "400" })).not.toBe("sizes");
    expect(plan({ q: "final" })).not.toBe("sizes");
    expect(plan({ q: "final report", min_size: "100", max_size: "400" })).not.toBe("sizes");
  });
});
