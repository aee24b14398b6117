import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Db } from "../../src/db/client.ts";
import { createSearchRepo, type SearchPlanOptions } from "../../src/domain/search/search.repo.ts";
import { inRuns, intersectRuns, intersectWords, mergeRuns } from "../../src/domain/search/search.runs.ts";
import { parseSearchInput } from "../../src/domain/search/search.service.ts";
import { newId } from "../../src/platform/ids.ts";
import { expectSamePages, grantsOf, ONLY_GENERAL, totalOf } from "../helpers/plan-compare.ts";
import { closeTempDb, openTempDb } from "../helpers/temp-db.ts";
import { seedTree, softDeleteSome, spreadDates } from "../helpers/tree-seed.ts";

describe("runs of rowids", () => {
  it("merges, tests and intersects runs", () => {
    const span = (lo: number, hi: number) => ({ lo, hi, rows: hi - lo + 1 });
    expect(
      mergeRuns([span(10, 20), span(1, 3), span(4, 5), span(15, 30), { lo: 1, hi: 0, rows: 0 }]),
    ).toEqual([
      [1, 5],
      [10, 30],
    ]);
    const runs: [number, number][] = [
      [1, 5],
      [10, 30],
    ];
    expect([0, 1, 5, 6, 9, 10, 30, 31].map((x) => inRuns(runs, x))).toEqual([
      false,
      true,
      true,
      false,
      false,
      true,
      true,
      false,
    ]);
    expect(
      intersectRuns(runs, [
        [3, 12],
        [20, 40],
      ]),
    ).toEqual([
      [3, 5],
      [10, 12],
      [20, 30],
    ]);
  });

  it("keeps the rowids every word holds, in its own matches or its runs", () => {
    const words = [
      { own: [2, 7, 50], runs: [[10, 20] as [number, number]] },
      { own: [7, 12, 60], runs: [[15, 17] as [number, number], [49, 50] as [number, number]] },
      { own: [16, 18, 50], runs: [[1, 12] as [number, number]] },
    ];
    // 7: own of the first two, run of the third; 12: run, own, run; 16: run, run, own; 50: own, run, own.
    expect(intersectWords(words, 100)).toEqual([7, 12, 16, 50]);
    expect(intersectWords(words, 3)).toBeUndefined();
    expect(intersectWords([], 10)).toEqual([]);
  });
});

/**
 * The plan for several words of folders' names (search.runs.ts) must page
 * exactly as the general plan does, whether the folders' rows were written
 * in one run or had rows added and moved in later.
 */
describe("runs search plan", () => {
  let dir: string;
  let db: Db;
  const org = newId();
  const other = newId();

  beforeAll(() => {
    ({ dir, db } = openTempDb("attic-runs-", [org, other]));
    const folders = [
      "/Music/Kraków Live 1998",
      "/Music/Kraków Live 1998/Disc live 2",
      "/Music/Warsaw",
      "/Photos/Kraków 2019",
      "/Photos/Kraków 2019/live shots",
      "/Photos/Gdańsk",
      "/Video/Breaking Bad/Season 03",
      "/Video/Breaking Bad/Season 04",
      "/Video/Bad Live",
    ];
    const names = ["%d live.mp3", "IMG_%d.jpg", "Kraków %d.png", "s03e%d breaking.mkv", "notes %d.txt"];
    const entries = folders.flatMap((folder, f) =>
      Array.from({ length: 30 }, (_, i) => ({
        path: `${folder}/${names[(i + f) % names.length]!.replace("%d", String(i % 17))}`,
        size: ((i * 7919 + f) % 13) * 1000,
      })),
    );
    seedTree(
      db,
      org,
      entries.filter((e, i) => entries.findIndex((x) => x.path === e.path) === i),
    );
    seedTree(db, other, ["/Music/Kraków Live 1998/theirs live.mp3"]);
    // Rows added to a named folder after its run, and one moved into another.
    seedTree(db, org, ["/Photos/Kraków 2019/live shots/later.jpg", "/Music/Warsaw/Kraków live later.flac"]);
    db.$client
      .prepare(
        "UPDATE files SET name = 'moved.png', path = '/Music/Kraków Live 1998/moved.png', parent_id = (SELECT id FROM files WHERE organization_id = ? AND path = '/Music/Kraków Live 1998') " +
          "WHERE organization_id = ? AND path = '/Photos/Gdańsk/IMG_1.jpg'",
      )
      .run(org, org);
    softDeleteSome(db, org, 20, 35);
    spreadDates(db);
  });
  afterAll(() => closeTempDb(dir, db));

  // The folders plan answers where the runs plan declines.
  const runs = (options: Partial<SearchPlanOptions> = {}) =>
    createSearchRepo(db, { ...ONLY_GENERAL, folders: true, runs: true, ...options });
  const general = () => createSearchRepo(db, ONLY_GENERAL);

  const cases: Record<string, unknown>[] = [
    { q: "krakow live", limit: 1000 },
    { q: "KRAKÓW LIVE", sort_order: "desc", limit: 7, offset: 3 },
    { q: "krakow live", sort_by: "relevance", limit: 1000 },
    { q: "krakow live", sort_by: "size", sort_order: "desc", limit: 1000 },
    { q: "krakow live", sort_by: "updated_at", limit: 1000 },
    { q: "krakow live", type: "file", min_size: "2000", max_size: "9000", limit: 1000 },
    { q: "krakow live", path: "/Music", limit: 1000 },
    { q: "breaking bad s03", limit: 1000 },
    { q: "bad live mp3", limit: 1000 },
    { q: "moved krakow", limit: 1000 },
    { q: "krakow live", offset: 100_000 },
  ];

  it("gives the same pages and totals as the general plan", () => {
    expectSamePages(runs(), general(), org, cases, { plan: "runs" });
    const total = (i: Record<string, unknown>) => totalOf(runs(), org, i);
    // The cases match rows through folders' names, names, both, and rows added or moved later.
    expect(total({ q: "krakow live" })).toBeGreaterThan(60);
    expect(total({ q: "breaking bad s03" })).toBeGreaterThan(10);
    expect(total({ q: "later krakow live" })).toBe(2);
    expect(total({ q: "moved krakow" })).toBe(1);
  });

  it("leaves single words and short words to the folders plan", () => {
    const plan = (i: Record<string, unknown>) => {
      const spec = parseSearchInput(i);
      return runs().page(org, spec, spec.limit, spec.offset).plan;
    };
    expect(plan({ q: "krakow live" })).toBe("runs");
    expect(plan({ q: "krakow" })).toBe("folders");
    expect(plan({ q: "krakow li" })).toBe("folders");
  });

  it("obeys folder grants and the organization", () => {
    const c = db.$client;
    c.prepare(
      "UPDATE files SET acl_id = 'A' WHERE organization_id = ? AND path LIKE '/Music/Kraków Live 1998/Disc%'",
    ).run(org);
    c.prepare("UPDATE files SET acl_id = 'B' WHERE organization_id = ? AND path LIKE '/Photos/%'").run(org);
    try {
      expectSamePages(runs(), general(), org, cases, { plan: "runs", scope: grantsOf(["A"]) });
      const theirs = parseSearchInput({ q: "theirs live krakow" });
      expect(runs().page(org, theirs, 50, 0)).toMatchObject({ total: 0 });
      expect(runs().page(other, theirs, 50, 0)).toMatchObject({ total: 1 });
    } finally {
      c.prepare("UPDATE files SET acl_id = NULL WHERE organization_id = ?").run(org);
    }
  });
});
