import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Db } from "../../src/db/client.ts";
import { chooseDriver, type Driver, foldersPageQuery } from "../../src/domain/search/search.folders.ts";
import type { Sql } from "../../src/domain/search/search.query.ts";
import { createSearchRepo, DEFAULT_PLAN } from "../../src/domain/search/search.repo.ts";
import { parseSearchInput } from "../../src/domain/search/search.service.ts";
import { newId } from "../../src/platform/ids.ts";
import { ONLY_GENERAL } from "../helpers/plan-compare.ts";
import { closeTempDb, openTempDb } from "../helpers/temp-db.ts";
import { seedTree, softDeleteSome } from "../helpers/tree-seed.ts";

/**
 * The folder-terms plan (search.folders.ts) must page exactly as the general
 * plan does, whichever sets it reads, under folder grants too.
 */
describe("folder-terms search plan", () => {
  let dir: string;
  let db: Db;
  const org = newId();
  const other = newId();

  beforeAll(() => {
    ({ dir, db } = openTempDb("attic-folders-", [org, other]));
    // Terms in folder names, in file names, in both, with accents and case on either side.
    const folders = [
      "/Photos/2019 Holiday/Beach",
      "/Photos/Hólidáy 2008",
      "/Photos/Wedding 2019",
      "/Movies/Amélie (2019) [2160p]",
      "/Movies/Cosmos",
      "/TV/Breaking Bad – Season 03",
      "/Docs",
    ];
    const names = [
      "IMG_%d.jpg",
      "holiday %d.JPG",
      "HOLIDAY 2019 %d.png",
      "Cosmos.2019.2160p.%d.mkv",
      "Breaking.Bad.S03E%d.mkv",
      "amelie %d.srt",
      "Zoë 2019 %d.flac",
      "notes %d.txt",
    ];
    const entries = Array.from({ length: 700 }, (_, i) => ({
      path: `${folders[i % folders.length]}/${names[i % names.length]!.replace("%d", String(i % 61))}`,
      size: ((i * 7919) % 89) * 1000,
      created_at: new Date(Date.UTC(2020, 0, 1) + ((i * 104729) % 97) * 86_400_000).toISOString(),
    }));
    seedTree(
      db,
      org,
      entries.filter((e, i) => entries.findIndex((x) => x.path === e.path) === i),
    );
    // The same name in many folders: pages by name break its ties on ids.
    seedTree(
      db,
      org,
      Array.from({ length: 12 }, (_, n) => `/Ties/Holiday 2019 ${n}/tie.jpg`),
    );
    // Every trigram of "qabcd" is in some folder's path, the term itself in none.
    seedTree(db, org, ["/Tri/qabcx/1.txt", "/Tri/xbcdy/2.txt", "/Docs/qabcd.txt"]);
    seedTree(db, other, ["/Holiday 2019/theirs.jpg", "/Photos/Holiday/2019.jpg"]);
    // Deleted rows, which every plan leaves out.
    softDeleteSome(db, org, 50, 80);
  });
  afterAll(() => closeTempDb(dir, db));

  const folders = () =>
    createSearchRepo(db, {
      ...DEFAULT_PLAN,
      span: false,
      runs: false,
      dense: false,
      broad: false,
      sizes: false,
      subtree: false,
    });
  const general = () => createSearchRepo(db, ONLY_GENERAL);

  const cases: Record<string, unknown>[] = [
    { q: "holiday 2019", limit: 1000 },
    { q: "holiday 2019", limit: 7, offset: 20 },
    { q: "holiday 2019", offset: 10_000 },
    { q: "HOLIDAY photos", sort_order: "desc", limit: 1000 },
    { q: "hólidáy 2008", limit: 1000 },
    { q: "amelie 2160p", limit: 1000 },
    { q: "cosmos 2019 mkv", limit: 1000 },
    { q: "breaking bad s03", limit: 1000 },
    { q: "breaking bad s03", sort_by: "size", sort_order: "desc" },
    { q: "2019", path: "/Photos", limit: 1000 },
    { q: "2019", path: "/Photos/Wedding 2019", limit: 1000 },
    { q: "wedding jpg", sort_by: "created_at", limit: 1000 },
    { q: "2019 zoe", sort_by: "updated_at", sort_order: "desc", limit: 1000 },
    { q: "holiday 2019", sort_by: "relevance", limit: 1000 },
    { q: "holiday 2019", type: "file", limit: 1000 },
    { q: "photos 2019", min_size: 20000, max_size: 60000, limit: 1000 },
    { q: "photos 2019", start_date: "2020-02-01", limit: 1000 },
    { q: "movies 20", limit: 1000 },
    { q: "holiday 2019 tie", limit: 3, offset: 4 },
    { q: "holiday 2019 tie.jpg", limit: 5, offset: 5, sort_order: "desc" },
    { q: "movies e", limit: 1000 },
  ];

  it("gives the same pages and totals as the general plan", () => {
    const a = folders();
    const b = general();
    for (const i of cases) {
      const spec = parseSearchInput(i);
      const x = a.page(org, spec, spec.limit, spec.offset);
      const y = b.page(org, spec, spec.limit, spec.offset);
      expect(x.plan, JSON.stringify(i)).toBe("folders");
      expect(y.plan, JSON.stringify(i)).toBe("general");
      expect(x.total, JSON.stringify(i)).toBe(y.total);
      expect(x.ids, JSON.stringify(i)).toEqual(y.ids);
      expect(x.estimated).toBe(false);
    }
    // The cases really match something, accents and folders included.
    const total = (i: Record<string, unknown>) => {
      const spec = parseSearchInput(i);
      return a.page(org, spec, spec.limit, spec.offset).total;
    };
    expect(total({ q: "holiday 2019" })).toBeGreaterThan(50);
    expect(total({ q: "hólidáy 2008" })).toBeGreaterThan(10);
    expect(total({ q: "amelie 2160p" })).toBeGreaterThan(10);
    expect(total({ q: "2019", path: "/Photos/Wedding 2019" })).toBeGreaterThan(10);
  });

  it("gives the same rows whichever sets it reads", () => {
    const b = general();
    const resolve = folders();
    const kinds = new Set<string>();
    for (const i of cases) {
      const spec = resolve.resolve(parseSearchInput(i));
      const expected = b.page(org, spec, spec.limit, spec.offset);
      // Estimates that steer the choice: every expression cheap but one; terms' rows many and
      // their folders few (each folder term's children); all alike.
      const exprs = [...spec.terms!.fts, ...spec.terms!.viaFolders].flatMap((e) => [e, `path : (${e})`]);
      const steers = [
        ...exprs.map((dear) => (e: string) => (e === dear ? 1e9 : 1)),
        (e: string) => (e.startsWith("path") ? 1 : 1000),
        () => 1000,
      ];
      const drivers = new Map<string, Driver>();
      for (const steer of steers) {
        const d = chooseDriver(spec, steer);
        drivers.set(JSON.stringify(d), d);
      }

      for (const d of drivers.values()) {
        kinds.add(d.folders.length === 0 ? "own rows" : d.folders.length === 1 ? "one term" : "every term");
        const q = foldersPageQuery(org, spec, d, spec.limit, spec.offset);
        const rows = db.$client.prepare(q.sql).all(...q.params) as { id: string; total: number }[];
        if (spec.offset < expected.total) expect(rows[0]?.total, JSON.stringify([i, d])).toBe(expected.total);
        expect(
          rows.map((r) => r.id),
          JSON.stringify([i, d]),
        ).toEqual(expected.ids);
      }
    }
    expect([...kinds].sort()).toEqual(["every term", "one term", "own rows"]);
  });

  it("tells the terms some folder's path holds from the others", () => {
    const terms = (q: string) => folders().resolve(parseSearchInput({ q })).terms!;
    expect(terms("qabcd")).toMatchObject({ fts: ['"qabcd"'], viaFolders: [] });
    expect(terms("qabcx")).toMatchObject({ fts: [], viaFolders: ['"qabcx"'] });
    expect(terms("bcdy qab")).toMatchObject({ fts: [], viaFolders: ['"bcdy"', '"qab"'] });
    expect(terms("s03e")).toMatchObject({ fts: ['"s03e"'], viaFolders: [] });
    const spec = parseSearchInput({ q: "qabcd" });
    expect(general().page(org, spec, 50, 0).total).toBe(1);
  });

  it("chooses between its sets by the estimates", () => {
    const spec = folders().resolve(parseSearchInput({ q: "holiday 2019" }));
    expect(spec.terms!.viaFolders).toEqual(['"holiday"', '"2019"']);
    const cheap = (expr: string) => (e: string) => (e === expr || e === `path : (${expr})` ? 10 : 100_000);
    expect(chooseDriver(spec, cheap('"2019"'))).toEqual({
      own: '"2019"',
      ownChecked: ["holiday"],
      folders: ["2019"],
    });
    expect(chooseDriver(spec, () => 1000).folders).toHaveLength(1);
    expect(chooseDriver(spec, (e) => (e.startsWith("path") ? 1 : 1000))).toEqual({
      own: '"holiday" AND "2019"',
      ownChecked: [],
      folders: ["holiday", "2019"],
    });
    // A term only in names, that many rows hold: a folder term drives instead.
    const mixed = folders().resolve(parseSearchInput({ q: "holiday 2019 jpg" }));
    expect(mixed.terms!.fts).toEqual(['"jpg"']);
    expect(chooseDriver(mixed, (e) => (e === '"jpg"' ? 1e6 : 10)).folders.length).toBeGreaterThan(0);
    expect(chooseDriver(mixed, (e) => (e === '"jpg"' ? 1 : 1e6))).toEqual({
      own: '"jpg"',
      ownChecked: ["holiday", "2019"],
      folders: [],
    });
  });

  it("obeys folder grants", () => {
    const c = db.$client;
    // The viewer reads access root "A" (and the top's list), not "B".
    c.prepare(
      "UPDATE files SET acl_id = 'A' WHERE organization_id = ? AND path LIKE '/Photos/2019 Holiday%'",
    ).run(org);
    c.prepare(
      "UPDATE files SET acl_id = 'B' WHERE organization_id = ? AND path LIKE '/Photos/Hólidáy 2008%'",
    ).run(org);
    try {
      const acl: Sql = {
        sql: "(f.acl_id IS NULL OR f.acl_id IN (SELECT value FROM json_each(?)))",
        params: ['["A"]'],
      };
      const a = folders();
      const b = general();
      for (const i of cases) {
        const spec = parseSearchInput(i);
        const x = a.page(org, spec, spec.limit, spec.offset, { acl });
        const y = b.page(org, spec, spec.limit, spec.offset, { acl });
        expect(x.plan).toBe("folders");
        expect(x.total, JSON.stringify(i)).toBe(y.total);
        expect(x.ids, JSON.stringify(i)).toEqual(y.ids);
      }
      const spec = parseSearchInput({ q: "holiday photos", limit: 1000 });
      const seen = a.page(org, spec, 1000, 0, { acl });
      const all = a.page(org, spec, 1000, 0);
      expect(seen.total).toBeLessThan(all.total);
      const hidden = new Set(
        (c.prepare("SELECT id FROM files WHERE acl_id = 'B'").all() as { id: string }[]).map((r) => r.id),
      );
      expect(hidden.size).toBeGreaterThan(0);
      expect(seen.ids.filter((id) => hidden.has(id))).toEqual([]);
      expect(all.ids.some((id) => hidden.has(id))).toBe(true);
    } finally {
      c.prepare("UPDATE files SET acl_id = NULL WHERE organization_id = ?").run(org);
    }
  });
});
