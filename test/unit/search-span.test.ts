import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Db } from "../../src/db/client.ts";
import { createSearchRepo, type SearchPlanOptions } from "../../src/domain/search/search.repo.ts";
import { parseSearchInput } from "../../src/domain/search/search.service.ts";
import { spanQuery, spanSet, spanSetCountQuery } from "../../src/domain/search/search.span.ts";
import { newId } from "../../src/platform/ids.ts";
import { expectSamePages, grantsOf, notedRepo, ONLY_GENERAL, totalOf } from "../helpers/plan-compare.ts";
import { closeTempDb, openTempDb } from "../helpers/temp-db.ts";
import { seedTree, softDeleteSome, spreadDates } from "../helpers/tree-seed.ts";

/**
 * The plan for text under a folder within its span of rowids
 * (search.span.ts) must page exactly as the general plan does: same rows,
 * order and exact totals, under folder grants too, and after rows are
 * added to a folder outside its first run, moved into it, or deleted.
 */
describe("folder span search plan", () => {
  let dir: string;
  let db: Db;
  const org = newId();
  const other = newId();

  // Written folder by folder, as a scan writes them: each folder's rows one run of rowids.
  const folders = [
    "/Music/Zoë Keating",
    "/Music/Zoë Keating/Into the Trees",
    "/Photos/Été 2019",
    "/Photos/Été 2019/Plage finale",
    "/Photos/Été 2019/Plage finale/raw",
    "/Photos/Xmas",
    "/Photos.bak",
    "/Videos/東京",
    "/Videos/Tokyo Trip",
    "/Videos/Tokyo Trip/Day trip",
  ];
  const names = [
    "Final %d.jpg",
    "IMG_%d.jpg",
    "Scène %d.png",
    "track %d.flac",
    "猫 %d.heic",
    "notes ab %d.TXT",
    "z%d",
  ];

  beforeAll(() => {
    ({ dir, db } = openTempDb("attic-span-", [org, other]));
    const entries = folders.flatMap((folder, f) =>
      Array.from({ length: 60 }, (_, i) => ({
        path: `${folder}/${names[(i + f) % names.length]!.replace("%d", String(i % 23))}`,
        size: ((i * 7919 + f) % 13) * 1000,
      })),
    );
    seedTree(
      db,
      org,
      entries.filter((e, i) => entries.findIndex((x) => x.path === e.path) === i),
    );
    seedTree(db, other, ["/Photos/Été 2019/theirs final.jpg", "/Photos/Xmas/final theirs.jpg"]);
    // Later rows: added to folders after their first run, one moved in from elsewhere.
    seedTree(db, org, [
      "/Photos/Xmas/later final.jpg",
      "/Photos/Été 2019/Plage finale/later ab.png",
      "/Photos/Xmas/new/猫 final.jpg",
    ]);
    db.$client
      .prepare(
        "UPDATE files SET name = 'Moved final.jpg', path = '/Photos/Xmas/Moved final.jpg', parent_id = (SELECT id FROM files WHERE organization_id = ? AND path = '/Photos/Xmas') " +
          "WHERE organization_id = ? AND path = '/Music/Zoë Keating/Final 0.jpg'",
      )
      .run(org, org);
    softDeleteSome(db, org, 30, 45);
    spreadDates(db);
  });
  afterAll(() => closeTempDb(dir, db));

  // Considered at any size here (the library is small).
  const span = (options: Partial<SearchPlanOptions> = {}) =>
    createSearchRepo(db, { ...ONLY_GENERAL, span: true, ...options });
  const general = () => createSearchRepo(db, ONLY_GENERAL);

  const cases: Record<string, unknown>[] = [
    { q: "final", path: "/Photos", limit: 1000 },
    { q: "FINAL", path: "/Photos/Xmas", limit: 1000 },
    { q: "final", path: "/Photos/Été 2019", sort_order: "desc", limit: 7, offset: 3 },
    { q: "ab", path: "/Photos/Été 2019/Plage finale", limit: 1000 },
    { q: "raw", path: "/Photos", limit: 1000 },
    { q: "ab", path: "/Photos", sort_by: "size", limit: 1000 },
    { q: "ab", path: "/Photos", sort_by: "size", sort_order: "desc", limit: 1000 },
    { q: "猫", path: "/Photos", sort_by: "created_at", limit: 1000 },
    { q: "猫 final", path: "/Photos", sort_by: "updated_at", sort_order: "desc", limit: 1000 },
    { q: "scene", path: "/Photos", sort_by: "relevance", limit: 1000 },
    { q: "final e", path: "/Photos", sort_by: "relevance", limit: 1000 },
    { q: "img plage", path: "/Photos", limit: 1000 },
    { q: "keating track", path: "/Music", limit: 1000 },
    { q: "trees", path: "/Music/Zoë Keating", type: "directory", limit: 1000 },
    { q: "final", path: "/Photos", min_size: "2000", max_size: "9000", limit: 1000 },
    { q: "final", path: "/Photos", start_date: "2001-09-20", end_date: "2001-10-01", limit: 1000 },
    { q: "xmas final", path: "/Photos/Xmas", limit: 1000 },
    { q: "東京 猫", path: "/Videos", limit: 1000 },
    { q: "final", path: "/Photos", offset: 100_000 },
    { q: "qqqq", path: "/Photos" },
    { q: "final", path: "/Nowhere" },
  ];

  it("gives the same pages and totals as the general plan", () => {
    const a = span();
    expectSamePages(a, general(), org, cases, { plan: "span" });
    for (const i of cases) expect(a.page(org, parseSearchInput(i), 50, 0).estimated).toBe(false);
    const total = (i: Record<string, unknown>) => totalOf(a, org, i);
    // The cases match something: the later rows, the moved one, folder names and accents included.
    expect(total({ q: "final", path: "/Photos/Xmas" })).toBeGreaterThan(8);
    expect(total({ q: "later", path: "/Photos" })).toBe(2);
    expect(total({ q: "moved", path: "/Photos/Xmas" })).toBe(1);
    expect(total({ q: "raw", path: "/Photos" })).toBeGreaterThan(40);
    expect(total({ q: "scene", path: "/Photos" })).toBeGreaterThan(10);
    expect(total({ q: "trees", path: "/Music/Zoë Keating", type: "directory" })).toBe(1);
    expect(total({ q: "xmas final", path: "/Photos/Xmas" })).toBe(
      total({ q: "final", path: "/Photos/Xmas" }),
    );
  });

  it("lets the general plan read the index within the folder's rowids, with the same pages and totals", () => {
    // The span plan declining at once (spanMaxMatches 0): the general plan answers, its FTS reads
    // bounded by the folder's span and own row (search.query.ts RowidRange).
    const { repo, ran } = notedRepo(db, { ...ONLY_GENERAL, span: true, spanMaxMatches: 0 });
    const matching = cases.filter((i) => i.q !== "qqqq" && i.path !== "/Nowhere");
    const more: Record<string, unknown>[] = [
      // Terms the folder's own path holds: its own row matches too.
      { q: "xmas", path: "/Photos/Xmas", limit: 1000 },
      { q: "été", path: "/Photos/Été 2019", sort_by: "relevance", limit: 1000 },
      { q: "final", path: "/Photos/Xmas", offset: 5, limit: 4 },
    ];
    expectSamePages(repo, general(), org, [...matching, ...more], { plan: "general" });
    const ranged = (sql: string) => sql.includes("count(*) OVER ()") && sql.includes("rowid BETWEEN ? AND ?");
    expect(ran.filter(ranged).length).toBeGreaterThanOrEqual(matching.length);
  });

  it("answers a folder without rows at once, reading nothing of the index", () => {
    const { repo, ran } = notedRepo(db, { ...ONLY_GENERAL, span: true });
    for (const q of ["final", "ab", "_"]) {
      const spec = parseSearchInput({ q, path: "/Nowhere" });
      expect(repo.page(org, spec, 50, 0)).toMatchObject({ ids: [], total: 0, plan: "span" });
    }
    expect(ran.filter((sql) => sql.includes("files_fts MATCH"))).toEqual([]);
  });

  it("sees rows written after its span was read", () => {
    const a = span();
    const spec = parseSearchInput({ q: "final", path: "/Photos/Xmas", limit: 1000 });
    const before = a.page(org, spec, 1000, 0);
    const ids = seedTree(db, org, ["/Photos/Xmas/deeper/still/final again.jpg"]);
    const after = a.page(org, spec, 1000, 0);
    expect(after.plan).toBe("span");
    // The new file (the two folders made for it hold no "final"), past the span read before it.
    expect(after.total).toBe(before.total + 1);
    expect(after.ids).toContain(ids.get("/Photos/Xmas/deeper/still/final again.jpg"));
  });

  it("leaves terms in the folder's own path, common terms, big folders, tags and '/' to the other plans", () => {
    const plan = (i: Record<string, unknown>, options: Partial<SearchPlanOptions> = {}) => {
      const spec = parseSearchInput(i);
      return span(options).page(org, spec, spec.limit, spec.offset).plan;
    };
    expect(plan({ q: "final", path: "/Photos" })).toBe("span");
    // Every row under /Photos/Xmas holds "xmas": no term drives.
    expect(plan({ q: "xmas", path: "/Photos/Xmas" })).toBe("general");
    expect(plan({ q: "final", path: "/Photos/Été 2019/Plage finale" })).toBe("general");
    // A single letter never drives, nor a term with more rows in the folder than the bound.
    expect(plan({ q: "e", path: "/Photos" })).toBe("general");
    expect(plan({ q: "final", path: "/Photos" }, { spanMaxMatches: 5 })).toBe("general");
    // The folder's rows past the bound are not read for a span.
    expect(plan({ q: "final", path: "/Photos" }, { spanMaxRows: 10 })).toBe("general");
    expect(plan({ q: "final" })).toBe("general");
    expect(plan({ q: "final", path: "/Photos", tags: newId() })).toBe("general");
    expect(plan({ q: "Xmas/final", path: "/Photos" })).toBe("general");
  });

  it("reads more of a span's rows once the dense plan has declined", () => {
    const i = { q: "final", path: "/Photos/Xmas", limit: 1000 };
    // The rows the plan counts for "final" within the folder's span (rows added later widen it).
    const c = db.$client;
    const q = spanQuery(org, "/Photos/Xmas", 1e9);
    const { lo, hi, n } = c.prepare(q.sql).get(...q.params) as { lo: number; hi: number; n: number };
    const counted = spanSetCountQuery(spanSet('"final"', { lo, hi, rows: n }, true), 1e9);
    const rows = (c.prepare(counted.sql).get(...counted.params) as { n: number }).n;
    expect(rows).toBeGreaterThan(8);
    // A bound a third of them: the first try declines, the second (four times it) reads them.
    const late = span({ spanMaxMatches: Math.ceil(rows / 3) });
    expectSamePages(late, general(), org, [i, { ...i, sort_by: "relevance", offset: 2 }], { plan: "span" });
    const spec = parseSearchInput(i);
    expect(span({ spanMaxMatches: Math.ceil(rows / 5) }).page(org, spec, 1000, 0).plan).toBe("general");
  });

  it("lets the dense plan's folder walk test a span holding its folder alone by rowid", () => {
    // /Videos/東京 was written in one run and nothing was added: its span holds it alone.
    // /Photos/Xmas had rows added and moved in later: its folders are listed instead.
    const dense = createSearchRepo(db, {
      ...ONLY_GENERAL,
      dense: true,
      denseMinTotal: 0,
      denseMinHits: 1,
      denseMaxWalk: 1e9,
    });
    const b = general();
    const walked: Record<string, unknown>[] = [
      { q: "jpg", path: "/Videos/東京" },
      { q: "videos heic", path: "/Videos/東京", limit: 5, offset: 2 },
      { q: "jpg", path: "/Videos/東京", sort_order: "desc", limit: 1000 },
      { q: "jpg", path: "/Photos/Xmas", limit: 1000 },
      { q: "xmas", path: "/Photos/Xmas", sort_order: "desc", limit: 1000 },
    ];
    expectSamePages(dense, b, org, walked, { plan: "dense" });
    expect(
      dense.page(org, parseSearchInput({ q: "jpg", path: "/Videos/東京" }), 50, 0).ids.length,
    ).toBeGreaterThan(5);
  });

  it("gives the rows under the folders named by a term through their spans, as the general plan does", () => {
    // "trip" names /Videos/Tokyo Trip and the folder inside it, each written in one run: their
    // rows are tested by rowid. "xmas" names /Photos/Xmas, which had rows added later: its
    // folders' children are read into a set instead. Both must give the general plan's rows.
    const options = { ...ONLY_GENERAL, denseMinTotal: 0, denseMinHits: 1 };
    const dense = createSearchRepo(db, { ...options, dense: true, denseMaxWalk: 0 });
    const sizes = createSearchRepo(db, { ...options, sizes: true });
    const b = general();
    expectSamePages(
      dense,
      b,
      org,
      [
        { q: "trip", sort_by: "updated_at", sort_order: "desc", limit: 1000 },
        { q: "trip", sort_by: "created_at", limit: 7, offset: 4 },
        { q: "trip jpg", sort_by: "name", sort_order: "desc", limit: 1000 },
        { q: "trip tokyo", limit: 1000 },
        { q: "xmas", sort_by: "updated_at", sort_order: "desc", limit: 1000 },
      ],
      { plan: "dense" },
    );
    expectSamePages(
      sizes,
      b,
      org,
      [
        { q: "trip", min_size: "2000", max_size: "3000", limit: 1000 },
        { q: "xmas", min_size: "2000", max_size: "3000", limit: 1000 },
      ],
      { plan: "sizes" },
    );
    expect(totalOf(b, org, { q: "trip" })).toBeGreaterThan(100);
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
      const scope = grantsOf(["A"]);
      expectSamePages(span(), general(), org, cases, { scope });
      expect(totalOf(span(), org, { q: "final", path: "/Photos/Xmas" }, scope)).toBe(0);
      expect(totalOf(span(), org, { q: "final", path: "/Photos/Xmas" })).toBeGreaterThan(0);
      // The other organization's files are never among this one's matches.
      const theirs = parseSearchInput({ q: "theirs", path: "/Photos" });
      expect(span().page(org, theirs, 50, 0)).toMatchObject({ total: 0, plan: "span" });
      expect(span().page(other, theirs, 50, 0)).toMatchObject({ total: 2, plan: "span" });
    } finally {
      c.prepare("UPDATE files SET acl_id = NULL WHERE organization_id = ?").run(org);
    }
  });
});
