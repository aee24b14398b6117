import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Db } from "../../src/db/client.ts";
import { createSearchRepo, DEFAULT_PLAN } from "../../src/domain/search/search.repo.ts";
import { parseSearchInput } from "../../src/domain/search/search.service.ts";
import { heldByEveryWord } from "../../src/domain/search/search.sizes.ts";
import { newId } from "../../src/platform/ids.ts";
import { expectSamePages, grantsOf, ONLY_GENERAL, totalOf } from "../helpers/plan-compare.ts";
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

  // Every term's index matches counted as at least as many as the range's rows. `rowids`: the
  // range and the words read as rowids first (sizeRangeRowidsPage), else the set built at once.
  const sizes = (rowids = true) =>
    createSearchRepo(db, {
      ...DEFAULT_PLAN,
      span: false,
      dense: false,
      broad: false,
      folders: false,
      // Every range here is small enough for the subtree plan to read it whatever its terms.
      subtree: false,
      sizeRowids: rowids,
    });
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
  ];
  // Read as rowids only. Several terms (a set would be built from every one's matches), and a word
  // only a folder's name holds: every row from the runs under /Music/Final Fantasy (its index
  // matches are too few for the range's rows to be tested against a set).
  const rowidsOnly: Record<string, unknown>[] = [
    { q: "fantasy", min_size: "100", max_size: "400", limit: 1000 },
    { q: "final report", min_size: "100", max_size: "400", limit: 1000 },
    { q: "fantasy track", min_size: "50", max_size: "900", sort_by: "name", sort_order: "desc", limit: 1000 },
    { q: "été jpg", min_size: "0", max_size: "700", sort_by: "relevance", limit: 1000 },
    { q: "final fantasy", min_size: "100", max_size: "400", path: "/Music", limit: 1000 },
  ];

  it("gives the same pages and exact totals as the general plan, reading rowids or building a set", () => {
    expectSamePages(sizes(), general(), org, [...cases, ...rowidsOnly], { plan: "sizes" });
    expectSamePages(sizes(false), general(), org, cases, { plan: "sizes" });
    expectSamePages(sizes(), general(), org, [{ q: "nothing-like-it", min_size: "1" }]);
    // The cases match something, accents and folder names included, and the range is a bound.
    const total = (i: Record<string, unknown>) => totalOf(sizes(), org, i);
    expect(total({ q: "final", min_size: "100", max_size: "400" })).toBeGreaterThan(20);
    expect(total({ q: "fantasy", min_size: "100", max_size: "400" })).toBeGreaterThan(20);
    expect(total({ q: "final report", min_size: "100", max_size: "400" })).toBeGreaterThan(20);
    expect(total({ q: "été", min_size: "1000", max_size: "1100" })).toBeGreaterThan(5);
    expect(total({ q: "report", min_size: "200", max_size: "300" })).toBeGreaterThan(5);
    expect(total({ q: "final", min_size: "100", max_size: "400" })).toBeLessThan(total({ q: "final" }));
  });

  it("answers words within a range before the dense plan, and single letters after it", () => {
    const all = createSearchRepo(db, { ...DEFAULT_PLAN, denseMinTotal: 0, denseMinHits: 1 });
    expectSamePages(all, general(), org, [{ q: "final", min_size: "100", max_size: "400", limit: 20 }], {
      plan: "sizes",
    });
    const spec = parseSearchInput({ q: "e", min_size: "100", max_size: "400" });
    expect(all.page(org, spec, spec.limit, spec.offset).plan).toBe("dense");
  });

  it("reads the range's rows for a word with more matches than it reads rowids of", () => {
    // Five at most: "final" has more, and every range here is a few times fewer rows than that.
    const common = createSearchRepo(db, { ...DEFAULT_PLAN, span: false, dense: false, sizeOwnMax: 5 });
    const few = [
      { q: "final", min_size: "100", max_size: "104", limit: 1000 },
      { q: "final", max_size: "3", sort_by: "name", sort_order: "desc" },
    ];
    expectSamePages(common, general(), org, few, { plan: "subtree" });
    expect(totalOf(common, org, few[0]!)).toBeGreaterThan(0);
  });

  it("keeps to the viewer's folder grants", () => {
    const c = db.$client;
    c.prepare("UPDATE files SET acl_id = 'A' WHERE organization_id = ? AND path LIKE '/Docs/%'").run(org);
    try {
      const scope = grantsOf(["B"]);
      const granted = [
        { q: "final", min_size: "100", max_size: "400", limit: 1000 },
        { q: "final report", min_size: "100", max_size: "400", limit: 1000 },
      ];
      expectSamePages(sizes(), general(), org, granted, { plan: "sizes", scope });
      expectSamePages(sizes(false), general(), org, granted.slice(0, 1), { plan: "sizes", scope });
      expect(totalOf(sizes(), org, granted[0]!, scope)).toBeLessThan(totalOf(sizes(), org, granted[0]!));
    } finally {
      c.prepare("UPDATE files SET acl_id = NULL WHERE organization_id = ?").run(org);
    }
  });

  it("reads a range's rowids again once the database changed, and keeps each organization's and range's apart", () => {
    // One repository, so that what it keeps between searches is what the next one reads.
    const repo = sizes();
    const final = { q: "final", min_size: "100", max_size: "400", limit: 1000 };
    const before = totalOf(repo, org, final);
    expect(totalOf(repo, org, { ...final, min_size: "401", max_size: "900" })).toBe(
      totalOf(general(), org, { ...final, min_size: "401", max_size: "900" }),
    );
    // The other organization's one file in that range, through the same repository.
    expect(totalOf(repo, other, final)).toBe(1);
    const added = seedTree(db, org, [{ path: "/Misc/final added.pdf", size: 250 }]);
    try {
      expect(totalOf(repo, org, final)).toBe(before + 1);
      expectSamePages(repo, general(), org, [final], { plan: "sizes" });
    } finally {
      db.$client.prepare("DELETE FROM files WHERE id = ?").run(added.get("/Misc/final added.pdf"));
    }
    expect(totalOf(repo, org, final)).toBe(before);
  });

  it("leaves wide ranges, large minimums, tags and terms with '/' to the other plans", () => {
    const plan = (i: Record<string, unknown>, rowids = true) => {
      const spec = parseSearchInput(i);
      return sizes(rowids).page(org, spec, spec.limit, spec.offset).plan;
    };
    // The range holds more rows than the term has index matches (set), or than 16 for each of
    // the rows of a rare word (rowids: IMG_13.jpg's few).
    expect(plan({ q: "report", min_size: "0" }, false)).not.toBe("sizes");
    expect(plan({ q: "img_13", min_size: "0" })).not.toBe("sizes");
    expect(plan({ q: "report", min_size: "0" })).toBe("sizes");
    expect(plan({ q: "final", min_size: String(200 * 1024 * 1024) })).not.toBe("sizes");
    expect(plan({ q: "final", tags: newId(), min_size: "100" })).not.toBe("sizes");
    expect(plan({ q: "Docs/final", min_size: "100", max_size: "400" })).not.toBe("sizes");
    expect(plan({ q: "final" })).not.toBe("sizes");
    expect(plan({ q: "final report", min_size: "100", max_size: "400" }, false)).not.toBe("sizes");
  });
});

describe("rowids every word holds", () => {
  it("is exactly the range's rowids in each word's own matches or runs, ascending", () => {
    const range = [300, 5, 31, 32, 33, 63, 64, 95, 96, 97, 127, 200, 1, 0, 250];
    const words = [
      { own: [0, 5, 97, 250, 400], runs: [[30, 96] as [number, number], [120, 128] as [number, number]] },
      // A run ending a few rowids into a 32-bit word of the bitmap.
      { own: [1, 5, 33, 127], runs: [[60, 90] as [number, number], [240, 260] as [number, number]] },
    ];
    const expected = range
      .filter((x) => words.every((w) => w.own.includes(x) || w.runs.some(([lo, hi]) => lo <= x && x <= hi)))
      .sort((a, b) => a - b);
    expect(expected).toEqual([5, 33, 63, 64, 127, 250]);
    expect(heldByEveryWord(range, words, 100)).toEqual(expected);
    expect(heldByEveryWord(range, words, 5)).toBeUndefined();
    expect(heldByEveryWord(range, words, 6)).toEqual(expected);
    expect(heldByEveryWord([], words, 6)).toEqual([]);
  });
});
