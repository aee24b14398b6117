import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Db } from "../../src/db/client.ts";
import { ALL_LETTERS } from "../../src/domain/search/fold.ts";
import {
  bucketWalkQuery,
  expectedBucketRows,
  expectedLengthWalk,
  lengthWalkQuery,
  namesOnlyQuery,
  narrowestOf,
  pathSpans,
  pathTextCondition,
  walkQuery,
  walkToPage,
} from "../../src/domain/search/search.dense.ts";
import { LARGE_FILE_BYTES, OWN_MATCHES } from "../../src/domain/search/search.query.ts";
import {
  createSearchRepo,
  DEFAULT_PLAN,
  type SearchPlanOptions,
} from "../../src/domain/search/search.repo.ts";
import { parseSearchInput, rowsInOrder } from "../../src/domain/search/search.service.ts";
import {
  folderMatch,
  idList,
  inFolders,
  inSet,
  setOrder,
  setRowsQuery,
  setWalkQuery,
} from "../../src/domain/search/search.sets.ts";
import { newId } from "../../src/platform/ids.ts";
import { expectSamePages, notedRepo, ONLY_GENERAL, totalOf } from "../helpers/plan-compare.ts";
import { closeTempDb, openTempDb } from "../helpers/temp-db.ts";
import { seedTree, softDeleteSome, spreadDates } from "../helpers/tree-seed.ts";

/** Letters for a number: names without digits. */
const letters = (i: number) =>
  [...String(i * 7 + 1000)].map((d) => String.fromCharCode(97 + Number(d))).join("");

/** A walk of the name index over a set of the text's matches (setWalkQuery). */
const nameSetWalk = (sql: string) =>
  sql.includes("INDEXED BY files_live_name_idx") && sql.includes("f.rowid IN (");

/** The dense plan at any size (the libraries here are small), the others it would give way to off. */
const ANY_DENSE: SearchPlanOptions = {
  ...DEFAULT_PLAN,
  span: false,
  denseMinTotal: 0,
  denseMinHits: 1,
  large: false,
  sizes: false,
};

/**
 * The dense plan (search.dense.ts) must page exactly as the general plan
 * does. On a table this small its sample reads every row, so its estimate
 * is the exact count too.
 */
describe("dense search plan", () => {
  let dir: string;
  let db: Db;
  const org = newId();
  const other = newId();
  const input = (i: Record<string, unknown>) => parseSearchInput(i);

  beforeAll(() => {
    ({ dir, db } = openTempDb("attic-dense-", [org, other]));
    const names = [
      "IMG_%d.jpg",
      "img_%d.JPG",
      "Amélie %d.mkv",
      "AMELIE %d.srt",
      "notes %d.txt",
      "Ärger %d.jpg",
      "Zoë %d.flac",
      "東京 %d.jpg",
      "🎉 party %d.mp4",
    ];
    const folders = ["/Photos/Holiday 2019", "/Movies/Amélie", "/Music/Björk", "/Docs"];
    const entries = Array.from({ length: 720 }, (_, i) => ({
      path: `${folders[i % folders.length]}/${names[i % names.length]!.replace("%d", String(i % 53))}`,
      // Every third file is large (in files_live_size_idx), the rest small; sizes repeat, so ties occur.
      size: i % 3 === 0 ? LARGE_FILE_BYTES + ((i * 7919) % 97) * 1_000_000 : ((i * 7919) % 97) * 1000,
    }));
    seedTree(
      db,
      org,
      entries.filter((e, i) => entries.findIndex((x) => x.path === e.path) === i),
    );
    seedTree(db, other, ["/Theirs/IMG_1.jpg", "/Theirs/amelie.mkv"]);
    softDeleteSome(db, org, 40, 60);
    spreadDates(db);
  });
  afterAll(() => closeTempDb(dir, db));

  const dense = (fewRows = DEFAULT_PLAN.denseFewRows) =>
    createSearchRepo(db, { ...ANY_DENSE, denseFewRows: fewRows, denseMaxWalk: 1e9 });
  const general = () => createSearchRepo(db, ONLY_GENERAL);

  const cases: Record<string, unknown>[] = [
    { q: "jpg" },
    { q: "jpg", sort_order: "desc", limit: 7, offset: 30 },
    { q: "amelie" },
    { q: "AMÉLIE", limit: 1000 },
    { q: "ë" },
    { q: "e", limit: 1000 },
    { q: "zo" },
    { q: "東京" },
    { q: "🎉" },
    { q: "photos img" },
    { q: "björk flac", limit: 3, offset: 2 },
    // By size: from a large minimum, walking files_live_size_idx; otherwise a bucket of sizes at a
    // time (files_live_size_bucket_idx), smallest or largest first, into the small files.
    { q: "jpg", sort_by: "size", sort_order: "desc" },
    { q: "jpg", sort_by: "size" },
    { q: "mkv", sort_by: "size", min_size: 20_000, max_size: 60_000 },
    { q: "jpg", sort_by: "size", sort_order: "desc", offset: 100, limit: 200 },
    { q: "e", sort_by: "size", offset: 3, limit: 1000 },
    { q: "jpg", sort_by: "size", sort_order: "desc", offset: 11, limit: 13 },
    { q: "mkv", sort_by: "size", min_size: LARGE_FILE_BYTES, max_size: LARGE_FILE_BYTES + 60_000_000 },
    { q: "e", sort_by: "size", min_size: LARGE_FILE_BYTES + 20_000_000, sort_order: "desc", limit: 1000 },
    { q: "jpg", path: "/Photos", type: "file" },
    // Names alone decide (terms in no folder's path): the name index walked without its rows.
    { q: "img_1", limit: 5, offset: 3 },
    { q: "jpg img", sort_order: "desc", offset: 40, limit: 25 },
    { q: "jpg", min_size: 5000, max_size: 80_000, limit: 5, offset: 2 },
    // Directories only, walking their own index.
    { q: "o", type: "directory", limit: 3 },
    { q: "e", type: "directory", sort_order: "desc", offset: 1, limit: 2 },
    { q: "Holiday 2019", limit: 1000 },
    // Across folders' "/" a term matches; across the last one of a file's path it does not.
    { q: "ic/Björk" },
    { q: "Björk/Zoë" },
    { q: "nothing-like-this" },
    { q: "jpg", offset: 100_000 },
    // By date (migration 0018's indexes), with many rows sharing a date: ties go by id.
    { q: "jpg", sort_by: "updated_at", sort_order: "desc" },
    { q: "e", sort_by: "updated_at", limit: 1000 },
    { q: "amelie", sort_by: "created_at", sort_order: "desc", limit: 9, offset: 4 },
    { q: "jpg", sort_by: "created_at", start_date: "2001-09-20T00:00:00.000Z", limit: 40 },
    // By relevance, pages within the rows whose name holds every term; past them ("movies": a
    // folder's name), the rows matching through their folders' paths, from the shortest name up.
    { q: "amelie", sort_by: "relevance", limit: 5 },
    { q: "movies amelie", sort_by: "relevance" },
    { q: "photos", sort_by: "relevance", offset: 10, limit: 20 },
    { q: "amelie", sort_by: "relevance", limit: 1000 },
    { q: "zo", sort_by: "relevance", limit: 1000 },
    { q: "jpg img", sort_by: "relevance", offset: 20, limit: 10 },
    // Under a folder: the names within its span of rowids, and the folder's own row, which lies
    // outside the span of its descendants.
    { q: "amelie", path: "/Movies", sort_by: "relevance", limit: 1000 },
    { q: "photos", path: "/Photos", sort_by: "relevance", limit: 20 },
    { q: "photos", path: "/Photos", sort_by: "updated_at", sort_order: "desc", limit: 1000 },
    { q: "jpg", path: "/Photos", sort_by: "relevance", offset: 5, limit: 20 },
    // Terms too short for the index: from the shortest names up (files_live_length_idx).
    { q: "e", sort_by: "relevance", limit: 5 },
    { q: "zo", sort_by: "relevance", offset: 3, limit: 10 },
    { q: "É", sort_by: "relevance", limit: 40 },
    { q: "1 jpg", sort_by: "relevance", offset: 7, limit: 9 },
  ];
  /** Pages the dense plan leaves to the exact plans. */
  const declined: Record<string, unknown>[] = [
    // Names alone decide, but the matches ("🎉 party …") lie past the names the walk may read.
    { q: "party", min_size: 5000, max_size: 80_000, limit: 5, offset: 2 },
  ];

  it("gives the general plan's pages, and its totals when the sample covers the table", () => {
    const b = general();
    // By relevance, the names holding every term read from their set (this table's sets are all
    // small), or, with none read that way, the walk of the names' lengths.
    for (const a of [dense(), dense(0)])
      for (const i of cases) {
        const spec = input(i);
        const x = a.page(org, spec, spec.limit, spec.offset);
        const y = b.page(org, spec, spec.limit, spec.offset);
        // Nothing in the sample: the exact plans answer (and count nothing).
        if (y.total > 0) expect(x.plan, JSON.stringify(i)).toBe("dense");
        else expect(x.plan, JSON.stringify(i)).not.toBe("dense");
        expect(x.ids, JSON.stringify(i)).toEqual(y.ids);
        expect(x.total, JSON.stringify(i)).toBe(y.total);
        expect(y.estimated).toBe(false);
      }
    const a = dense();
    for (const i of declined) {
      const spec = input(i);
      const x = a.page(org, spec, spec.limit, spec.offset);
      const y = b.page(org, spec, spec.limit, spec.offset);
      expect(x.plan, JSON.stringify(i)).not.toBe("dense");
      expect(x.ids, JSON.stringify(i)).toEqual(y.ids);
      expect(x.ids.length).toBeGreaterThan(0);
    }
    // The cases do find something: an empty page everywhere would prove nothing.
    expect(b.page(org, input({ q: "Holiday 2019" }), 1000, 0).ids.length).toBeGreaterThan(100);
    expect(b.page(org, input({ q: "ic/Björk" }), 1000, 0).ids.length).toBeGreaterThan(100);
    expect(b.page(org, input({ q: "Björk/Zoë" }), 1000, 0).total).toBe(0);
  });

  it("walks the index of the order asked for", () => {
    const planOf = (q: { sql: string; params: unknown[] }) =>
      (db.$client.prepare(`EXPLAIN QUERY PLAN ${q.sql}`).all(...q.params) as { detail: string }[])
        .map((r) => r.detail)
        .join(" | ");
    const walks: [Record<string, unknown>, string][] = [
      [{ q: "o" }, "files_live_name_idx"],
      [{ q: "o", type: "directory" }, "files_live_dirs_idx"],
      [{ q: "o", sort_by: "updated_at", sort_order: "desc" }, "files_live_updated_idx"],
      [{ q: "o", sort_by: "created_at" }, "files_live_created_idx"],
      [{ q: "o", sort_by: "size", sort_order: "desc", min_size: LARGE_FILE_BYTES }, "files_live_size_idx"],
    ];
    for (const [i, index] of walks)
      expect(planOf(walkQuery(org, input(i))), JSON.stringify(i)).toContain(index);
    // Names alone deciding ("jpg": in no folder's path), the name index is read without its rows.
    for (const i of [{ q: "jpg" }, { q: "jpg", type: "directory", sort_order: "desc" }]) {
      const names = planOf(namesOnlyQuery(org, input(i)));
      expect(names, JSON.stringify(i)).toMatch(/COVERING INDEX files_live_(name|dirs)_idx/);
      expect(names, JSON.stringify(i)).not.toContain("TEMP B-TREE");
    }
    // By size below a large minimum: buckets in order, within the bounds' buckets, no sort of every row.
    const buckets = planOf(
      bucketWalkQuery(org, input({ q: "o", sort_by: "size", min_size: 10, max_size: 900 })),
    );
    expect(buckets).toContain("files_live_size_bucket_idx (organization_id=? AND <expr>>? AND <expr><?)");
    expect(buckets).not.toContain("TEMP B-TREE");
    // A set walk reads the order's index, each entry tested against the set built once.
    for (const [i, index] of [
      [{ q: "o", sort_by: "updated_at", sort_order: "desc" }, "files_live_updated_idx"],
      [{ q: "o", sort_by: "relevance" }, "files_live_length_idx"],
      [{ q: "o" }, "files_live_name_idx"],
    ] as const) {
      const set = inSet({ sql: OWN_MATCHES, params: ['"jpg"'] });
      const walk = planOf(setWalkQuery(org, setOrder(input(i))!, set));
      expect(walk, JSON.stringify(i)).toContain(index);
      expect(walk, JSON.stringify(i)).toContain("LIST SUBQUERY");
      expect(walk, JSON.stringify(i)).not.toContain("TEMP B-TREE");
    }
    // The folder walk tests each entry's folder and name in the name index alone (migration 0022).
    const folders = folderMatch([{ term: "jpg", folders: idList(["x"]) }, { term: "img" }], ALL_LETTERS, {
      rows: inFolders(idList(["y"])),
      self: 1,
    });
    const byFolder = planOf(setWalkQuery(org, setOrder(input({ q: "jpg img" }))!, folders));
    expect(byFolder).toContain("COVERING INDEX files_live_name_idx");
    expect(byFolder).not.toContain("TEMP B-TREE");
    // A few rows of a set read from the set by rowid, then sorted: no index of the order walked.
    const fromSet = planOf(
      setRowsQuery(org, setOrder(input({ q: "o", sort_by: "relevance" }))!, {
        sql: OWN_MATCHES,
        params: ['"jpg"'],
      }),
    );
    expect(fromSet).toContain("USING INTEGER PRIMARY KEY (rowid=?)");
    expect(fromSet).not.toContain("files_live_length_idx");
    const byLength = planOf(lengthWalkQuery(org, input({ q: "o", sort_by: "relevance" })));
    expect(byLength).toContain("files_live_length_idx");
    // The walk reads the index in its order: no sort of every row.
    expect(byLength).not.toContain("TEMP B-TREE");
  });

  it("flags a total it estimated, and gives an exact one when the walk reaches the end", () => {
    const repo = dense();
    const page = repo.page(org, input({ q: "jpg" }), 10, 0);
    expect(page).toMatchObject({ plan: "dense", estimated: true });
    expect(page.ids).toHaveLength(10);
    const all = repo.page(org, input({ q: "jpg" }), 1000, 0);
    expect(all).toMatchObject({ plan: "dense", estimated: false, total: all.ids.length });
  });

  it("reads its sample again once the database changed: a search counts the rows added and deleted since", () => {
    const repo = dense();
    // A page of 5: the walk stops before the end, and the total is the sample's (it reads every row here).
    const kept = (i: Record<string, unknown>) => {
      const page = repo.page(other, input(i), 5, 0);
      expect(page, JSON.stringify(i)).toMatchObject({ plan: "dense", estimated: true });
      return page.total;
    };
    const sized = (from: number, n: number) =>
      Array.from({ length: n }, (_, i) => ({ path: `/Kept/kept ${from + i}.txt`, size: (from + i) * 10 }));
    seedTree(db, other, sized(0, 30));
    // No filter (the kept rows alone), and a range of sizes (their flags read per search).
    expect([kept({ q: "kept" }), kept({ q: "kept", min_size: 100 })]).toEqual([31, 20]);
    seedTree(db, other, sized(30, 20));
    expect([kept({ q: "kept" }), kept({ q: "kept", min_size: 100 })]).toEqual([51, 40]);
    // Deleted rows leave the highest rowid (which places the sample's windows) as it was.
    db.$client
      .prepare("UPDATE files SET is_deleted = 1 WHERE organization_id = ? AND name GLOB 'kept 4?.txt'")
      .run(other);
    expect([kept({ q: "kept" }), kept({ q: "kept", min_size: 100 })]).toEqual([41, 30]);
  });

  it("leaves small totals to the exact plans", () => {
    const repo = createSearchRepo(db);
    for (const q of ["jpg", "amelie", "e"]) {
      const spec = input({ q });
      const page = repo.page(org, spec, spec.limit, spec.offset);
      expect(page.plan, q).not.toBe("dense");
      expect(page.estimated).toBe(false);
    }
  });

  it("walks the set of matches past a walk far longer than its sample expected, else leaves it to an exact plan", () => {
    // Allowed to expect a walk of a single row: every page needs more.
    const repo = createSearchRepo(db, {
      ...DEFAULT_PLAN,
      span: false,
      denseMinTotal: 0,
      denseMinHits: 1,
      denseMaxWalk: 1,
    });
    // A term some folder's path holds ("/Movies/Amélie"): by name, the name index walked, each
    // entry's folder tested in it; by date, the walk over the set of the index's matches and the
    // children of the folders holding it.
    for (const i of [
      { q: "amelie" },
      { q: "amelie", sort_by: "updated_at", sort_order: "desc", limit: 7 },
      { q: "amelie jpg", sort_order: "desc", limit: 20, offset: 5 },
      { q: "ame", sort_by: "created_at", limit: 3 },
      // Under a path filter, by name: the name index walked, each entry's folder tested in it
      // (migration 0022), terms in the folders' paths or the names; the folder's own row too.
      { q: "o", path: "/Movies" },
      { q: "amelie", path: "/Movies", sort_order: "desc", limit: 9, offset: 3 },
      { q: "holiday jpg", path: "/Photos" },
      { q: "photos", path: "/Photos", limit: 1000 },
      { q: "e", path: "/Photos/Holiday 2019", limit: 1000 },
      // By relevance past the names holding the terms: the walk of the names' lengths over the set
      // of every match.
      { q: "photos", sort_by: "relevance", limit: 30 },
      { q: "movies amelie", sort_by: "relevance", offset: 5 },
      // Largest first past what a bucket walk reading rows may read: the buckets' index walked over
      // the set of every match, whole buckets at a time.
      { q: "jpg", sort_by: "size", sort_order: "desc", limit: 1000 },
      { q: "img", sort_by: "size", sort_order: "desc", limit: 40, offset: 100 },
      { q: "amelie", sort_by: "size", sort_order: "desc", limit: 7, offset: 60 },
    ]) {
      const spec = input(i);
      const page = repo.page(org, spec, spec.limit, spec.offset);
      const exact = general().page(org, spec, spec.limit, spec.offset);
      expect(page.plan, JSON.stringify(i)).toBe("dense");
      expect(page.ids, JSON.stringify(i)).toEqual(exact.ids);
      expect(page.ids.length, JSON.stringify(i)).toBeGreaterThan(0);
    }
    // A term with "/" may span a folder's name and a file's: no set of it, the exact plans answer.
    for (const i of [{ q: "ic/Björk" }, { q: "ies/Amé", path: "/Movies" }]) {
      const spec = input(i);
      const page = repo.page(org, spec, spec.limit, spec.offset);
      expect(page.plan, JSON.stringify(i)).not.toBe("dense");
      expect(page.total).toBe(general().page(org, spec, spec.limit, spec.offset).total);
      expect(page.total).toBeGreaterThan(0);
    }
  });

  it("keeps to the viewer's folder grants in pages and totals", () => {
    const c = db.$client;
    c.prepare("UPDATE files SET acl_id = 'A' WHERE organization_id = ? AND path LIKE '/Movies/%'").run(org);
    c.prepare("UPDATE files SET acl_id = 'B' WHERE organization_id = ? AND path LIKE '/Photos/%'").run(org);
    try {
      const acl = {
        sql: "(f.acl_id IS NULL OR f.acl_id IN (SELECT value FROM json_each(?)))",
        params: ['["A"]'],
      };
      for (const i of [
        { q: "jpg" },
        { q: "amelie", sort_by: "size", sort_order: "desc" },
        { q: "e", limit: 1000 },
      ]) {
        const spec = input(i);
        const x = dense().page(org, spec, spec.limit, spec.offset, { acl, hidden: ["B"] });
        const y = general().page(org, spec, spec.limit, spec.offset, { acl });
        expect(x.plan).toBe("dense");
        expect(x.ids, JSON.stringify(i)).toEqual(y.ids);
        expect(x.total, JSON.stringify(i)).toBe(y.total);
        const paths = rowsInOrder(db, org, x.ids).map((r) => r.path);
        expect(paths.some((p) => p.startsWith("/Photos/"))).toBe(false);
      }
    } finally {
      c.prepare("UPDATE files SET acl_id = NULL WHERE organization_id = ?").run(org);
    }
  });
});

/**
 * By name, a word of folders' names whose children's names come late in
 * the order (after thousands of music tracks named "00 …"): the walk starts
 * from the first name a match can have (nameBound), and must give the same
 * pages as the general plan, in either direction.
 */
describe("dense search plan from the first name a match can have", () => {
  let dir: string;
  let db: Db;
  const org = newId();
  const other = newId();

  beforeAll(() => {
    ({ dir, db } = openTempDb("attic-dense-bound-", [org, other]));
    seedTree(db, org, [
      ...Array.from({ length: 6000 }, (_, i) => `/Early/${String(i % 100).padStart(2, "0")} track ${i}.flac`),
      ...Array.from({ length: 300 }, (_, i) => `/Downloads/Doc ${i % 30} (copy ${i % 30})/b${i} report.pdf`),
      ...Array.from(
        { length: 40 },
        (_, i) => `/Downloads/Doc ${i % 30} (copy ${i % 30})/nested/Zed ${i}.txt`,
      ),
      // A folder within one, named before every file there; names holding the word themselves, one
      // before every child's name, one in an early folder.
      "/Downloads/Doc 3 (copy 3)/A sub/y.txt",
      "/Early/B copy notes.txt",
      "/Misc/Copy of plan.txt",
      // A directory naming the word before every file that does: no bound for files alone.
      "/Early/A copy dir/zz.txt",
      { path: "/Misc/Copy sized.txt", size: 700 },
    ]);
    // Another organization's folder of the same name, with a child named before all of them.
    seedTree(db, other, ["/Doc 1 (copy 1)/a first.pdf"]);
    softDeleteSome(db, org, 20, 40);
  });
  afterAll(() => closeTempDb(dir, db));

  // The first try reads the first 1,000 names (every "00 …" track): the page is not there.
  const dense = () => createSearchRepo(db, { ...ANY_DENSE, denseFolderWalkFirst: 1000 });
  const general = () => createSearchRepo(db, ONLY_GENERAL);

  it("gives the general plan's pages", () => {
    const cases: Record<string, unknown>[] = [
      { q: "copy" },
      { q: "copy", offset: 30, limit: 20 },
      { q: "copy", sort_order: "desc", limit: 25 },
      { q: "copy report" },
      { q: "COPY", type: "file", offset: 5 },
      { q: "copy", type: "file", limit: 3 },
    ];
    expectSamePages(dense(), general(), org, cases, { plan: "dense" });
    // Too few for the dense plan: the exact plans, the same rows.
    expectSamePages(dense(), general(), org, [
      { q: "copy zed", limit: 1000 },
      { q: "copy", min_size: 1 },
    ]);
  });

  it("goes on past the first names where some matches were among them", () => {
    // A match among the first names: the walk goes on after them, and the page holds both walks'.
    seedTree(db, org, ["/Early/00 copy early.txt"]);
    const cases: Record<string, unknown>[] = [
      { q: "copy" },
      { q: "copy", offset: 1, limit: 7 },
      { q: "copy report" },
    ];
    expectSamePages(dense(), general(), org, cases, { plan: "dense" });
    expect(totalOf(general(), org, { q: "copy" })).toBeGreaterThan(300);
  });

  it("reads the folders a word names again once the database changed", () => {
    // Walks too short for the page: the set of the matches answers, the folders' rows in it. One
    // repo throughout: what it kept of the first searches must not answer the later ones.
    const repo = createSearchRepo(db, { ...ANY_DENSE, denseMaxWalk: 10 });
    seedTree(db, other, [
      ...Array.from({ length: 200 }, (_, i) => `/Zebra/z${i}.txt`),
      ...Array.from({ length: 200 }, (_, i) => `/Misc/m${i}.txt`),
    ]);
    const cases: Record<string, unknown>[] = [{ q: "zebra" }, { q: "zebra", sort_order: "desc", limit: 25 }];
    expectSamePages(repo, general(), other, cases, { plan: "dense" });
    // A new folder naming the word, its children named before (and after) every other name.
    seedTree(db, other, ["/Misc/Zebra 2/0 first.pdf", "/Misc/Zebra 2/~ last.pdf"]);
    expectSamePages(repo, general(), other, cases, { plan: "dense" });
    const first = repo.page(other, parseSearchInput({ q: "zebra" }), 1, 0).ids;
    expect(rowsInOrder(db, other, first).map((r) => r.name)).toEqual(["0 first.pdf"]);
  });
});

/**
 * By name, a word of folders' names beside a term too short for the index
 * ("copy 3": "3" in thousands of names and folders): the folder walk tests
 * the word on each entry and reads the rows it keeps to test the short
 * term, instead of the set of every row under those folders.
 */
describe("dense search plan from the first name a match can have, with a short term", () => {
  let dir: string;
  let db: Db;
  const org = newId();

  beforeAll(() => {
    ({ dir, db } = openTempDb("attic-dense-short-", [org]));
    seedTree(db, org, [
      ...Array.from({ length: 6000 }, (_, i) => `/Early/${String(i % 100).padStart(2, "0")} track ${i}.flac`),
      ...Array.from({ length: 600 }, (_, i) => `/Downloads/Doc ${i % 30} (copy ${i % 30})/b${i} report.pdf`),
      "/Misc/Copy 3 of plan.txt",
      "/Misc/copy.txt",
    ]);
    softDeleteSome(db, org, 20, 40);
  });
  afterAll(() => closeTempDb(dir, db));

  const general = () => createSearchRepo(db, ONLY_GENERAL);
  /** The set walk's set: the rows under the word's folders, built from their children. */
  const childrenSet = (sql: string) => sql.includes("UNION SELECT c.rowid FROM files c");
  /** The folder walk reading rows to test a term the index cannot answer alone. */
  const folderWalk = (sql: string) =>
    sql.includes("INDEXED BY files_live_name_idx") &&
    sql.includes("f.parent_id IN") &&
    sql.includes("f.path");

  it("gives the general plan's pages without building the set of the folders' rows", () => {
    const { repo, ran } = notedRepo(db, { ...ANY_DENSE, denseFolderWalkFirst: 1000 });
    const cases: Record<string, unknown>[] = [
      { q: "copy 3" },
      { q: "3 copy", offset: 7, limit: 9 },
      { q: "copy 3", sort_order: "desc", limit: 25 },
      { q: "copy 3", type: "file" },
    ];
    expectSamePages(repo, general(), org, cases, { plan: "dense" });
    expect(ran.some(folderWalk)).toBe(true);
    expect(ran.some(childrenSet)).toBe(false);
  });

  it("gives up to the set walk past the rows it may read, or where the sample places too many before the page", () => {
    const cases: Record<string, unknown>[] = [
      { q: "copy 3" },
      { q: "copy 3", sort_order: "desc", limit: 25 },
    ];
    for (const options of [{ denseShortTermReads: 10 }, { denseShortTermExpected: 10 }]) {
      const { repo, ran } = notedRepo(db, { ...ANY_DENSE, denseFolderWalkFirst: 1000, ...options });
      expectSamePages(repo, general(), org, cases, { plan: "dense" });
      expect(ran.some(childrenSet)).toBe(true);
    }
  });
});

/**
 * Several terms, one of them in far fewer rows than another ("part 1": "1"
 * in nearly every row through its trigrams): the set walk builds that
 * term's set alone and tests each row it reads for the whole text.
 */
describe("dense search plan, a page the sample places far past the walk", () => {
  let dir: string;
  let db: Db;
  const org = newId();

  beforeAll(() => {
    ({ dir, db } = openTempDb("attic-dense-late-", [org]));
    // 20,000 names without the term first by name, then 3,000 holding it: its first page lies
    // ~20k names in, where a walk reading rows would read ~1,500 and give up.
    seedTree(db, org, [
      ...Array.from({ length: 20_000 }, (_, i) => `/Tracks/${String(i % 100).padStart(2, "0")}/a ${i}.flac`),
      ...Array.from({ length: 3000 }, (_, i) => `/Scans/s${i % 30}/zz scan ${i}.jpg`),
    ]);
  });
  afterAll(() => closeTempDb(dir, db));

  const watched = () => notedRepo(db, { ...ANY_DENSE, denseMaxWalk: 1000 });
  // The walk that reads the rows it passes, in the search's whole order (search.dense.ts walkQuery).
  const rowWalk = (sql: string) =>
    sql.includes("INDEXED BY files_live_name_idx") && sql.includes("f.path AS path");
  const general = () => createSearchRepo(db, ONLY_GENERAL);

  it("walks the set of the matches at once, with the general plan's pages", () => {
    const { repo, ran } = watched();
    expectSamePages(
      repo,
      general(),
      org,
      [{ q: "scan" }, { q: "scan", offset: 40, limit: 30 }, { q: "zz scan" }],
      {
        plan: "dense",
      },
    );
    expect(ran.some(rowWalk)).toBe(false);
    // Where the sample places the page near the start, the walk reading rows answers.
    ran.length = 0;
    expectSamePages(repo, general(), org, [{ q: "scan", sort_order: "desc" }], { plan: "dense" });
    expect(ran.some(rowWalk)).toBe(true);
  });
});

describe("dense search plan over the set of one term", () => {
  let dir: string;
  let db: Db;
  const org = newId();
  const other = newId();

  beforeAll(() => {
    ({ dir, db } = openTempDb("attic-dense-narrow-", [org, other]));
    seedTree(db, org, [
      // "1" in most rows' names or folders' paths, "part" in none of them.
      ...Array.from({ length: 3000 }, (_, i) => `/Music/Album ${i % 40}/${i} track.flac`),
      // "part" in 400 names: every fourth with "1" after it, many of the rest with no "1" in their
      // path.
      ...Array.from({ length: 400 }, (_, i) => ({
        path: `/Movies/Film ${String.fromCharCode(65 + (i % 26))}${i % 7}/Film ${i} part ${i % 4}.mkv`,
        size: (i % 5) * 100,
      })),
      ...Array.from({ length: 40 }, (_, i) => `/Parts 1/${String.fromCharCode(97 + (i % 26))}${i}.txt`),
    ]);
    seedTree(db, other, ["/Film part 1.mkv"]);
    softDeleteSome(db, org, 15, 30);
    spreadDates(db);
  });
  afterAll(() => closeTempDb(dir, db));

  // Every walk reading rows gives up at once: the set walks answer.
  const dense = () => createSearchRepo(db, { ...ANY_DENSE, denseMaxWalk: 1 });
  const general = () => createSearchRepo(db, ONLY_GENERAL);

  it("gives the general plan's pages, in every order and with filters", () => {
    const cases: Record<string, unknown>[] = [
      { q: "part 1", sort_by: "name" },
      { q: "part 1", sort_by: "name", sort_order: "desc", limit: 7, offset: 3 },
      { q: "1 part", sort_by: "created_at", limit: 30 },
      { q: "part 1", sort_by: "updated_at", sort_order: "desc", offset: 20 },
      { q: "part 1", sort_by: "size", sort_order: "desc", limit: 15 },
      { q: "part 1", min_size: 100, max_size: 300, sort_by: "name" },
      { q: "film 1 part", type: "file", sort_by: "created_at", sort_order: "desc", limit: 9 },
    ];
    expectSamePages(dense(), general(), org, cases, { plan: "dense" });
  });

  it("chooses the term whose set and rows read cost least, and only where that costs less than every term's set", () => {
    // "1": 3,000 rows, 200 of them read for the page; "part": 400, 150 read.
    expect(
      narrowestOf([
        { rows: 3000, reads: 200 },
        { rows: 400, reads: 150 },
      ]),
    ).toBe(1);
    // Reading 900 of "part"'s costs more than the set of both.
    expect(
      narrowestOf([
        { rows: 3000, reads: 200 },
        { rows: 400, reads: 900 },
      ]),
    ).toBeUndefined();
    // The fewer rows, read far past the page ("03" in music tracks named first): the other term.
    expect(
      narrowestOf([
        { rows: 1700, reads: 100 },
        { rows: 1200, reads: 800 },
      ]),
    ).toBe(0);
  });
});

/**
 * By size in a library of mostly empty files (as on a machine full of
 * placeholders, or the shared bench tree: ~90 % of its files are empty):
 * every empty file ties on size, so the bucket of size 0 is walked by name,
 * from the smallest first or after the larger ones from the largest first.
 */
describe("dense search plan by size, most files empty", () => {
  let dir: string;
  let db: Db;
  const org = newId();
  const input = (i: Record<string, unknown>) => parseSearchInput(i);

  beforeAll(() => {
    ({ dir, db } = openTempDb("attic-dense-empty-", [org]));
    const names = ["photo %d.jpg", "Notes %d.txt", "émile %d.txt", "track %d.flac"];
    seedTree(
      db,
      org,
      Array.from({ length: 3200 }, (_, i) => ({
        path: `/${["Photos", "Docs", "Music"][i % 3]}/${i % 40}/${names[i % names.length]!.replace("%d", String(i))}`,
        // One file in sixteen holds a few bytes (sizes repeat: ties within a bucket); the rest are empty.
        size: i % 16 === 0 ? 1 + ((i * 7919) % 700) : 0,
      })),
    );
  });
  afterAll(() => closeTempDb(dir, db));

  it("gives the general plan's pages through the empty files' bucket, in either direction", () => {
    const dense = createSearchRepo(db, ANY_DENSE);
    const general = createSearchRepo(db, ONLY_GENERAL);
    const cases: Record<string, unknown>[] = [
      { q: "e", sort_by: "size" },
      { q: "txt", sort_by: "size", offset: 20, limit: 30 },
      { q: "jpg", sort_by: "size", sort_order: "desc", offset: 150, limit: 100 },
      { q: "E", sort_by: "size", sort_order: "desc", offset: 190, limit: 40 },
      { q: "emile", sort_by: "size", type: "file", offset: 5 },
      { q: "o", sort_by: "size", type: "directory", sort_order: "desc", limit: 7 },
      // The empty files by name testing each entry's folder: a term in folders' paths, a path filter.
      { q: "photos", sort_by: "size", offset: 10, limit: 20 },
      { q: "music flac", sort_by: "size", sort_order: "desc", offset: 190, limit: 30 },
      { q: "music", path: "/Music", sort_by: "size", offset: 40, limit: 60 },
      // From a minimum of one byte: the buckets above the empty files' alone.
      { q: "photo", sort_by: "size", min_size: 1, offset: 3, limit: 20 },
      { q: "jpg", sort_by: "size", sort_order: "desc", min_size: 1, max_size: 400 },
    ];
    for (const i of cases) {
      const spec = input(i);
      const x = dense.page(org, spec, spec.limit, spec.offset);
      const y = general.page(org, spec, spec.limit, spec.offset);
      expect(x.plan, JSON.stringify(i)).toBe("dense");
      expect(x.ids, JSON.stringify(i)).toEqual(y.ids);
      expect(x.ids.length, JSON.stringify(i)).toBeGreaterThan(0);
    }
  });
});

/**
 * By size, smallest first, where the empty files' matches begin far into
 * the name order: a short term some folders' paths hold has no walk over
 * its folders, and a walk reading the rows by name gives up; the set of
 * its matches answers.
 */
describe("dense search plan by size, the empty files' matches late by name", () => {
  let dir: string;
  let db: Db;
  const org = newId();

  beforeAll(() => {
    ({ dir, db } = openTempDb("attic-dense-late-", [org]));
    seedTree(db, org, [
      // First by name, none holding a digit.
      ...Array.from({ length: 2000 }, (_, i) => `/Early/${"abcde"[i % 5]}/aa ${letters(i)}.txt`),
      // The matches: every file under a folder named with a "3", named after those.
      ...Array.from({ length: 600 }, (_, i) => `/Docs/x3y${letters(i % 20)}/zz ${letters(i)}.txt`),
      ...Array.from({ length: 60 }, (_, i) => ({
        path: `/Docs/x3y${letters(i % 20)}/zz big ${letters(i)}.txt`,
        size: 10 + i,
      })),
    ]);
  });
  afterAll(() => closeTempDb(dir, db));

  it("gives the general plan's pages", () => {
    const dense = createSearchRepo(db, { ...ANY_DENSE, denseMaxWalk: 1100 });
    const cases: Record<string, unknown>[] = [
      { q: "3", sort_by: "size" },
      { q: "3", sort_by: "size", offset: 7, limit: 11 },
      { q: "3 zz", sort_by: "size", type: "file", limit: 25 },
    ];
    expectSamePages(dense, createSearchRepo(db, ONLY_GENERAL), org, cases, { plan: "dense" });
  });
});

/**
 * By size, smallest first, the empty rows' matches through their folders'
 * names, beginning late by name but many: the walk by name goes as far as
 * the sample places the page, past the budget it would have from the
 * matches' share alone, instead of building the set of the matches.
 */
describe("dense search plan by size, the empty rows' many matches late by name", () => {
  let dir: string;
  let db: Db;
  const org = newId();

  beforeAll(() => {
    ({ dir, db } = openTempDb("attic-dense-late-many-", [org]));
    seedTree(db, org, [
      ...Array.from({ length: 700 }, (_, i) => `/Early/${"abcde"[i % 5]}/aa ${letters(i)}.txt`),
      ...Array.from({ length: 4200 }, (_, i) => `/Docs/x3y${letters(i % 40)}/zz ${letters(i)}.txt`),
      ...Array.from({ length: 40 }, (_, i) => ({
        path: `/Docs/x3yaaaa/zz big ${letters(i)}.txt`,
        size: 10 + i,
      })),
    ]);
  });
  afterAll(() => closeTempDb(dir, db));

  it("walks the names as far as the sample places the page, with the general plan's pages", () => {
    // A walk allowed 200 rows from the matches' share (2 × denseMaxWalk): the page is ~700 names in.
    const { repo, ran } = notedRepo(db, { ...ANY_DENSE, denseMaxWalk: 100 });
    const cases: Record<string, unknown>[] = [
      { q: "3", sort_by: "size" },
      { q: "3", sort_by: "size", offset: 9, limit: 30 },
    ];
    expectSamePages(repo, createSearchRepo(db, ONLY_GENERAL), org, cases, { plan: "dense" });
    expect(ran.some(nameSetWalk)).toBe(false);
  });
});

/**
 * By size, smallest first, in a library of mostly empty files whose names
 * alone hold the term and come late by name: the empty files' bucket is
 * walked by name over the set of the matches instead of testing every name
 * passed, where the sample places the page far past the matches' number.
 */
describe("dense search plan by size, the matching names late among the empty files", () => {
  let dir: string;
  let db: Db;
  const org = newId();

  beforeAll(() => {
    ({ dir, db } = openTempDb("attic-dense-sizes-set-", [org]));
    // About one file in eight a match, spread over the rowids as a scan would write them; by name, last.
    seedTree(db, org, [
      ...Array.from(
        { length: 3400 },
        (_, i) => `/Files/${i % 20}/${(i * 37) % 101 < 13 ? `zz ${i}.tar.gz` : `aa ${i}.txt`}`,
      ),
      ...Array.from({ length: 40 }, (_, i) => ({ path: `/Files/${i % 20}/big ${i}.tar.gz`, size: 10 + i })),
    ]);
  });
  afterAll(() => closeTempDb(dir, db));

  /** The walk testing each name it passes (search.dense.ts namesOnlyQuery). */
  const namesWalk = (sql: string) => sql.includes("INDEXED BY files_live_name_idx") && sql.includes("GLOB");
  /** A walk of the name index over the set of the text's matches. */
  const setWalk = (sql: string) =>
    sql.includes("INDEXED BY files_live_name_idx") && sql.includes("f.rowid IN (SELECT rowid FROM files_fts");

  it("gives the general plan's pages from the set of the matches", () => {
    // The set walked even though it is small (denseFewRows: else its rows are read instead).
    const { repo, ran } = notedRepo(db, { ...ANY_DENSE, denseFewRows: 0 });
    const cases: Record<string, unknown>[] = [
      { q: "tar.gz", sort_by: "size" },
      { q: "tar.gz", sort_by: "size", offset: 13, limit: 21 },
      { q: "TAR.GZ", sort_by: "size", type: "file" },
    ];
    expectSamePages(repo, createSearchRepo(db, ONLY_GENERAL), org, cases, { plan: "dense" });
    expect(ran.some(setWalk)).toBe(true);
    expect(ran.some(namesWalk)).toBe(false);
  });
});

/**
 * Text SQLite tests as the search does (no letters with a case, nothing a
 * decomposition changes): the walks test it in SQL, reading no row into
 * JavaScript, and by creation date walk as far as the sample places the page.
 */
describe("dense search plan, walks tested in SQL", () => {
  let dir: string;
  let db: Db;
  const org = newId();
  const other = newId();

  beforeAll(() => {
    ({ dir, db } = openTempDb("attic-dense-tested-", [org, other]));
    seedTree(db, org, [
      // Written first: no "#" and no "(" anywhere in their paths.
      ...Array.from({ length: 1500 }, (_, i) => `/TV/Show ${i % 30}/S${i % 9}E${i % 13} - ${i}.mkv`),
      ...Array.from({ length: 900 }, (_, i) => ({
        path: `/Docs/Report #${i % 45}/Draft ${i} (v${i % 3}).pdf`,
        size: (i % 7) * 100,
      })),
      ...Array.from({ length: 300 }, (_, i) => `/Music/Band (${1990 + (i % 20)})/${i % 12} 東京 ${i}.flac`),
      // "[" in 80 long names, and in the paths of the 400 files below them.
      ...Array.from({ length: 400 }, (_, i) => `/Films/Movie [1080p] ${i % 80}/x${i}.mkv`),
    ]);
    seedTree(db, other, ["/Report #1/Draft (v1).pdf"]);
    softDeleteSome(db, org, 25, 50);
  });
  afterAll(() => closeTempDb(dir, db));

  it("turns only such text into conditions on the path", () => {
    expect(pathTextCondition("( #1")).toEqual({
      sql: "instr(f.path, ?) > 0 AND instr(f.path, ?) > 0",
      params: ["(", "#1"],
    });
    expect(pathTextCondition("東京 2019")?.params).toEqual(["東京", "2019"]);
    // A letter with a case (folded: "AMÉLIE" finds "amelie"), a term with "/", one NFD changes.
    expect(pathTextCondition("# draft")).toBeUndefined();
    expect(pathTextCondition("#/1")).toBeUndefined();
    expect(pathTextCondition("が")).toBeUndefined();
    // A combining mark (NFC keeps "क़" as क and a nukta), which the rows' own test drops.
    expect(pathTextCondition("क\u093c")).toBeUndefined();
  });

  it("gives the general plan's pages, and its totals when it reads every row", () => {
    // Every walk reading rows in JavaScript would give up at once.
    const dense = createSearchRepo(db, { ...ANY_DENSE, denseMaxWalk: 1 });
    const cases: Record<string, unknown>[] = [
      { q: "#", sort_by: "created_at" },
      { q: "(", sort_by: "created_at", offset: 40, limit: 30 },
      { q: "# (", sort_by: "created_at", sort_order: "desc", limit: 9 },
      { q: "#", sort_by: "updated_at", min_size: 200 },
      { q: "(1", sort_by: "name", sort_order: "desc", limit: 12 },
      { q: "東京", sort_by: "created_at", type: "file" },
      // Past the last match, and past every match: the walk reads the whole order, and counts them.
      { q: "東京", sort_by: "created_at", offset: 270 },
      { q: "東京", sort_by: "created_at", offset: 400 },
    ];
    expectSamePages(
      createSearchRepo(db, { ...ANY_DENSE, denseMaxWalk: 100_000 }),
      createSearchRepo(db, ONLY_GENERAL),
      org,
      cases,
      { plan: "dense" },
    );
    // With a budget of one row, the walk by date goes as far as the sample places the page.
    expectSamePages(dense, createSearchRepo(db, ONLY_GENERAL), org, cases.slice(0, 2), { plan: "dense" });
  });

  it("by relevance, walks from the shortest names tested in SQL, or the set of the few names holding a term", () => {
    // No set of every match may be built: the walk from the shortest names, tested in SQL, or, for
    // "[", in few names but many paths, the set of the names holding it.
    const dense = createSearchRepo(db, { ...ANY_DENSE, denseSetMax: 200 });
    const cases: Record<string, unknown>[] = [
      { q: "#", sort_by: "relevance", limit: 20 },
      { q: "( 1", sort_by: "relevance", offset: 3, limit: 7 },
      { q: "東京", sort_by: "relevance", path: "/Music", limit: 20 },
      { q: "[", sort_by: "relevance", limit: 70 },
      { q: "[", sort_by: "relevance", offset: 60, limit: 15 },
    ];
    expectSamePages(dense, createSearchRepo(db, ONLY_GENERAL), org, cases, { plan: "dense" });
  });
});

/**
 * Filters SQLite tests in the walk itself: where the rows first in the
 * order fail them (empty music tracks named "01 …" first by name), the
 * walk reads as far as the sample places the page, handing JavaScript only
 * the rows that pass.
 */
describe("dense search plan, walks filtered in SQL", () => {
  let dir: string;
  let db: Db;
  const org = newId();

  beforeAll(() => {
    ({ dir, db } = openTempDb("attic-dense-filtered-", [org]));
    seedTree(db, org, [
      // First by name, all empty.
      ...Array.from({ length: 800 }, (_, i) => `/Music/Album ${i % 50}/0${i % 9} Seven Songs ${i}.mp3`),
      ...Array.from({ length: 3000 }, (_, i) => ({
        path: `/Docs/${["Work", "Bank", "Home"][i % 3]}/Letter ${i}.txt`,
        size: (i * 37) % 700,
      })),
    ]);
    spreadDates(db);
  });
  afterAll(() => closeTempDb(dir, db));

  it("gives the general plan's pages", () => {
    // Walks reading rows in JavaScript give up after 10 rows.
    const dense = createSearchRepo(db, { ...ANY_DENSE, denseMaxWalk: 10 });
    const cases: Record<string, unknown>[] = [
      { q: "e", min_size: 100, max_size: 400 },
      { q: "k", min_size: 1, sort_order: "desc", limit: 17, offset: 4 },
      { q: "k", min_size: 100, max_size: 400 },
      { q: "0", min_size: 100, max_size: 400 },
      { q: "e", min_size: 100, sort_by: "updated_at", sort_order: "desc", limit: 20 },
      { q: "t", type: "file", min_size: 600, offset: 30 },
      // Deep: the walk stops at its budget short of the page, and gives it to the set walk.
      { q: "e", min_size: 100, max_size: 400, offset: 500 },
    ];
    expectSamePages(dense, createSearchRepo(db, ONLY_GENERAL), org, cases, { plan: "dense" });
  });
});

/**
 * A camera's names all have one length ("IMG_0001.JPG"): by relevance, the
 * rows tying on the page's last length are more than a set walk reads, and
 * their first by name come from the name index instead.
 */
describe("dense search plan by relevance, names of one length by the thousand", () => {
  let dir: string;
  let db: Db;
  const org = newId();

  beforeAll(() => {
    ({ dir, db } = openTempDb("attic-dense-ties-", [org]));
    seedTree(db, org, [
      // Each name twice, in two cameras' folders: a page may end between a name's rows.
      ...Array.from(
        { length: 6200 },
        (_, i) => `/Camera/${i % 29}/IMG_${String(i % 3100).padStart(4, "0")}.JPG`,
      ),
      ...Array.from({ length: 300 }, (_, i) => `/Docs/img notes ${i}.txt`),
      ...Array.from({ length: 300 }, (_, i) => `/Docs/x${i}.txt`),
    ]);
    softDeleteSome(db, org, 30, 60);
  });
  afterAll(() => closeTempDb(dir, db));

  it("gives the general plan's pages", () => {
    const cases: Record<string, unknown>[] = [
      { q: "img", sort_by: "relevance" },
      { q: "jpg", sort_by: "relevance", offset: 100, limit: 30 },
      { q: "_", sort_by: "relevance", limit: 200 },
      { q: "img", sort_by: "relevance", path: "/Camera" },
    ];
    expectSamePages(createSearchRepo(db, ANY_DENSE), createSearchRepo(db, ONLY_GENERAL), org, cases, {
      plan: "dense",
    });
  });

  /** The page's last length read from the name index (lengthTiesQuery), and its last name's ties. */
  const tiesRead = (ran: readonly string[]) =>
    ran.some((sql) => sql.includes("INDEXED BY files_live_name_idx") && sql.includes("length(f.name) = ?")) &&
    ran.some((sql) => sql.includes("f.name = ? COLLATE NOCASE AND length(f.name) = ?"));

  it("reads a short term's tied length from the name index when no set is built for it", () => {
    // No set of the names holding "_": the walk from the shortest name tested in SQL.
    const { repo, ran } = notedRepo(db, { ...ANY_DENSE, denseSetMax: 0 });
    const cases: Record<string, unknown>[] = [
      { q: "_", sort_by: "relevance" },
      { q: "_", sort_by: "relevance", offset: 151, limit: 50 },
      { q: "_", sort_by: "relevance", path: "/Camera", limit: 120 },
    ];
    expectSamePages(repo, createSearchRepo(db, ONLY_GENERAL), org, cases, { plan: "dense" });
    expect(tiesRead(ran)).toBe(true);
  });
});

/**
 * A short term in file names alone (no folder's name holds it): names decide
 * whether a row matches, so a walk by name tests the name index's entries
 * alone, as for a longer term, reading no row it passes.
 */
describe("dense search plan, a short term in names alone", () => {
  let dir: string;
  let db: Db;
  const org = newId();

  beforeAll(() => {
    ({ dir, db } = openTempDb("attic-dense-short-names-", [org]));
    seedTree(db, org, [
      // The matches first by name (else their set is walked instead: few, and far into the names).
      ...Array.from({ length: 1800 }, (_, i) => `/Other/${i % 12}/mm ${i}.txt`),
      ...Array.from({ length: 900 }, (_, i) => `/Files/${i % 12}/ab_${i % 7} ${i}.txt`),
      // "q7" both in names and in a folder's: decided by paths, not names.
      ...Array.from({ length: 300 }, (_, i) => `/Mixed q7/${i % 5}/mm q7 ${i}.txt`),
    ]);
  });
  afterAll(() => closeTempDb(dir, db));

  /** namesOnlyQuery: the name index walked with the terms tested on its names. */
  const namesOnly = (sql: string) =>
    sql.startsWith("SELECT f.rowid, f.name FROM files f INDEXED BY files_live_name_idx") &&
    !sql.includes("length(f.name) = ?");

  it("walks the names alone, with the general plan's pages", () => {
    const { repo, ran } = notedRepo(db, ANY_DENSE);
    const cases: Record<string, unknown>[] = [
      { q: "_3" },
      { q: "_3", sort_order: "desc", limit: 20, offset: 7 },
      { q: "B_", type: "file" },
    ];
    expectSamePages(repo, createSearchRepo(db, ONLY_GENERAL), org, cases, { plan: "dense" });
    expect(ran.some(namesOnly)).toBe(true);
  });

  it("tests the paths where a folder's name holds the term", () => {
    const { repo, ran } = notedRepo(db, ANY_DENSE);
    expectSamePages(repo, createSearchRepo(db, ONLY_GENERAL), org, [{ q: "q7" }, { q: "q7", offset: 40 }]);
    expect(ran.some(namesOnly)).toBe(false);
  });
});

/**
 * A word naming a folder that holds most of the library ("photos" and
 * /Photos): its matches are the folder's span of rowids, more than a set
 * may hold, but a walk tests an entry against the span without building
 * anything, so the set walk answers instead of the exact plans.
 */
describe("dense search plan, a word naming a folder past the sets' bound", () => {
  let dir: string;
  let db: Db;
  const org = newId();

  beforeAll(() => {
    ({ dir, db } = openTempDb("attic-dense-big-folder-", [org]));
    seedTree(db, org, [
      ...Array.from({ length: 1600 }, (_, i) => `/Photos/${2000 + (i % 16)}/IMG_${i}.jpg`),
      // Written last: by date, newest first, these come before any match.
      ...Array.from({ length: 900 }, (_, i) => `/Docs/${i % 9}/report ${i}.pdf`),
    ]);
  });
  afterAll(() => closeTempDb(dir, db));

  it("walks the folder's span, with the general plan's pages", () => {
    // Sets of at most 100 matches; a walk reading rows gives up after 200.
    const { repo, ran } = notedRepo(db, { ...ANY_DENSE, denseSetMax: 100, denseMaxWalk: 100 });
    const cases: Record<string, unknown>[] = [
      { q: "photos", sort_by: "updated_at", sort_order: "desc" },
      { q: "photos", sort_by: "updated_at", sort_order: "desc", offset: 30, limit: 40 },
      { q: "PHOTOS", sort_by: "updated_at", sort_order: "desc", type: "file" },
    ];
    expectSamePages(repo, createSearchRepo(db, ONLY_GENERAL), org, cases, { plan: "dense" });
    expect(
      ran.some((sql) => sql.includes("INDEXED BY files_live_updated_idx") && sql.includes("f.rowid BETWEEN")),
    ).toBe(true);
  });
});

/**
 * By name, a page ending among thousands of rows of one name (a code
 * checkout's "main.css" in every package): the set walk reads that name's
 * first rows from the name index instead of giving up past SET_WALK_TIES.
 */
describe("dense search plan by name, thousands of rows of one name", () => {
  let dir: string;
  let db: Db;
  const org = newId();

  beforeAll(() => {
    ({ dir, db } = openTempDb("attic-dense-name-ties-", [org]));
    seedTree(db, org, [
      ...Array.from({ length: 1200 }, (_, i) => `/Other/${i % 12}/aaa ${i}.txt`),
      // Folders named after "main.css" (a match of "ha" through them), each holding one.
      ...Array.from({ length: 6000 }, (_, i) => ({ path: `/Lib/zha${i}/main.css`, size: i % 3 })),
    ]);
  });
  afterAll(() => closeTempDb(dir, db));

  it("reads the tied name's first rows, with the general plan's pages", () => {
    // A walk reading rows gives up after 200: the set of the matches is walked.
    const { repo, ran } = notedRepo(db, { ...ANY_DENSE, denseMaxWalk: 100 });
    const cases: Record<string, unknown>[] = [
      { q: "ha" },
      { q: "ha", offset: 20, limit: 30 },
      { q: "HA", min_size: 1, limit: 100 },
    ];
    expectSamePages(repo, createSearchRepo(db, ONLY_GENERAL), org, cases, { plan: "dense" });
    expect(ran.some((sql) => sql.includes("f.name = ? COLLATE NOCASE AND (f.path"))).toBe(true);
  });
});

/**
 * By name, text tested in JavaScript (letters: not a condition SQLite tests
 * on paths) whose many matches begin late: the walk reads as far as the
 * sample places the page, up to a quarter of a row a match, where no set
 * walk could answer after it (the exact plans would read every match).
 */
describe("dense search plan by name, many matches late, tested on each row read", () => {
  let dir: string;
  let db: Db;
  const org = newId();

  beforeAll(() => {
    ({ dir, db } = openTempDb("attic-dense-name-late-", [org]));
    seedTree(db, org, [
      ...Array.from({ length: 700 }, (_, i) => `/Early/${"abcde"[i % 5]}/aa ${letters(i)}.txt`),
      ...Array.from({ length: 6000 }, (_, i) => `/Docs/Qz${letters(i % 40)}/zz ${letters(i)}.txt`),
    ]);
  });
  afterAll(() => closeTempDb(dir, db));

  it("walks as far as the sample places the page, with the general plan's pages", () => {
    // A walk's budget from the matches' share alone: 6,000 / 16 rows, where the page is ~800 in;
    // and no set of the matches after it (more than denseSetMax, no folder's span for them).
    const { repo, ran } = notedRepo(db, { ...ANY_DENSE, denseMaxWalk: 100, denseSetMax: 1000 });
    const cases: Record<string, unknown>[] = [{ q: "qz" }, { q: "QZ", offset: 9, limit: 30 }];
    expectSamePages(repo, createSearchRepo(db, ONLY_GENERAL), org, cases, { plan: "dense" });
    expect(ran.some(nameSetWalk)).toBe(false);
  });
});

describe("how many rows a walk of the size buckets reads, from the sample", () => {
  // 100 sampled rows standing for 1000: 90 empty files (bucket 100), none a match, then ten of a
  // few bytes (buckets 101-110), each a match.
  const sized: [number, number, boolean][] = [
    ...Array.from({ length: 90 }, (): [number, number, boolean] => [100, 0, false]),
    ...Array.from({ length: 10 }, (_, i): [number, number, boolean] => [101 + i, 1 + i, true]),
  ];

  it("counts only the buckets the walk reads", () => {
    // Smallest first, a page of 20 matches needs two of the sampled ones (each stands for 10).
    expect(expectedBucketRows(sized, false, 20, 1000)).toBe(920);
    expect(expectedBucketRows(sized, false, 20, 1000, 101)).toBe(20);
    expect(expectedBucketRows(sized, true, 20, 1000)).toBe(20);
    expect(expectedBucketRows(sized, true, 20, 1000, 0, 105)).toBe(20);
  });
});

describe("how far a walk from the shortest name goes, from the sample", () => {
  // Ten sampled names of lengths 1-10 standing for 1000 rows; two of them hits, each standing for 100.
  const names = Array.from({ length: 10 }, (_, i) => "x".repeat(i + 1));

  it("passes the names shorter than the sampled hit that far into them, and half of its length's", () => {
    // A page of 50 lies within the first hit's share: the 4 names shorter than it, half of its own.
    expect(expectedLengthWalk(names, ["xxxxxxx", "xxxxx"], 50, 1000)).toBe(450);
    // A page of 150 reaches into the second.
    expect(expectedLengthWalk(names, ["xxxxxxx", "xxxxx"], 150, 1000)).toBe(650);
    // Counted in characters, not UTF-16 units.
    expect(expectedLengthWalk(["猫", "🎉🎉", "abc"], ["🎉🎉"], 1, 300)).toBe(150);
  });

  it("says every row when the sample holds too few hits", () => {
    expect(expectedLengthWalk(names, ["xxxxx"], 150, 1000)).toBe(1000);
    expect(expectedLengthWalk(names, [], 1, 1000)).toBe(1000);
  });
});

describe("where a name walk's page ends, from the sample", () => {
  // Ten sampled names standing for 1000 rows, three of them matches standing for 30 matches.
  const names = ["01 a", "01 b", "01 c", "01 d", "01 e", "Beach", "DSC_1", "DSC_2", "IMG_1", "zz"];
  const hits = ["DSC_1", "IMG_1", "dsc_2"];

  it("reads up to the sampled match as far into the matches as the page", () => {
    // A page of 20 needs the second sampled match ("dsc_2", case-folded as SQLite's NOCASE): the
    // names up to it, 8 of 10; 30 the third; descending, from "zz" down to "IMG_1".
    expect(walkToPage(names, hits, false, 20, 30, 1000)).toBe(800);
    expect(walkToPage(names, hits, false, 30, 30, 1000)).toBe(900);
    expect(walkToPage(names, hits, true, 10, 30, 1000)).toBe(200);
  });

  it("places a page within the first sampled match's share just before it", () => {
    // One sampled match stands for 10: a page of 5 ends halfway from one step before "DSC_1"
    // (6 of 10 names: the next sampled match, "dsc_2", is one name after it) to it.
    expect(walkToPage(names, hits, false, 5, 30, 1000)).toBeCloseTo(650);
    // Matches spread from the start: halfway to the first.
    expect(walkToPage(names, ["01 c", "DSC_1"], false, 5, 20, 1000)).toBeCloseTo(150);
  });

  it("says the whole order when the sample cannot tell", () => {
    expect(walkToPage(names, hits, false, 40, 30, 1000)).toBe(1000);
    expect(walkToPage(names, [], false, 1, 30, 1000)).toBe(1000);
  });
});

/**
 * Greek and Cyrillic accents, which the index's tokenizer keeps and the
 * rows' own test folds: every plan finds the same rows, typed with the
 * accents or without (search.query.ts termExpression).
 */
describe("search plans agree on Greek and Cyrillic accents", () => {
  let dir: string;
  let db: Db;
  const org = newId();
  beforeAll(() => {
    ({ dir, db } = openTempDb("attic-dense-greek-", [org]));
    const names = ["Αθήνα %d.jpg", "ΑΘΗΝΑ %d.txt", "крёстный %d.mkv", "Крестный %d.srt", "other %d.txt"];
    seedTree(
      db,
      org,
      Array.from({ length: 300 }, (_, i) => {
        const folder = ["/Ελλάδα 2019", "/Кино", "/Docs"][i % 3];
        return `${folder}/${names[i % names.length]!.replace("%d", String(i))}`;
      }),
    );
  });
  afterAll(() => closeTempDb(dir, db));

  it("finds the same rows whichever way the term is written, in every plan", () => {
    const dense = createSearchRepo(db, ANY_DENSE);
    const general = createSearchRepo(db, ONLY_GENERAL);
    const cases: Record<string, unknown>[] = [
      { q: "αθηνα" },
      { q: "αθήνα", sort_order: "desc" },
      { q: "ΑΘΗΝΑ", sort_by: "relevance" },
      { q: "крестный" },
      { q: "крёстный", sort_by: "size" },
      { q: "ελλαδα", limit: 200 },
      { q: "ελλαδα αθηνα", sort_by: "relevance" },
      // Short terms: the index's trigrams beginning with any of their spellings.
      { q: "θη" },
      { q: "ΘΗ", sort_by: "relevance" },
      { q: "ё" },
    ];
    expectSamePages(dense, general, org, cases, { plan: "dense" });
    // Every spelling finds all of them, through the general plan too (the index alone).
    expect(totalOf(general, org, { q: "αθηνα" })).toBe(120);
    expect(totalOf(general, org, { q: "Αθήνα" })).toBe(120);
    expect(totalOf(general, org, { q: "крестный" })).toBe(120);
    expect(totalOf(general, org, { q: "ελλαδα" })).toBe(101);
    expect(totalOf(general, org, { q: "θη" })).toBe(120);
  });
});

/** What the dense plan keeps of a folder (its spans of rowids) must not outlive a write under it. */
describe("dense search plan under a folder, after a write", () => {
  let dir: string;
  let db: Db;
  const org = newId();
  beforeAll(() => {
    ({ dir, db } = openTempDb("attic-dense-far-", [org]));
    seedTree(
      db,
      org,
      Array.from({ length: 40 }, (_, i) => `/Far/far ${i + 10}.txt`),
    );
  });
  afterAll(() => closeTempDb(dir, db));

  it("finds the rows added under it since", () => {
    // One repo throughout: the spans it kept of /Far must not answer the later searches.
    const repo = createSearchRepo(db, ANY_DENSE);
    const general = createSearchRepo(db, ONLY_GENERAL);
    const cases: Record<string, unknown>[] = [
      { q: "far", path: "/Far", sort_by: "updated_at", limit: 1000 },
      { q: "far", path: "/Far", sort_by: "relevance", limit: 1000 },
    ];
    expectSamePages(repo, general, org, cases, { plan: "dense" });
    // New rows under it, their rowids past its span, after rows elsewhere.
    seedTree(db, org, ["/Elsewhere/x.txt", "/Far/far 0.txt", "/Far/far 1.txt"]);
    expectSamePages(repo, general, org, cases, { plan: "dense" });
    expect(totalOf(repo, org, cases[0]!)).toBe(43);
  });
});

describe("the spans a path filter keeps (pathSpans)", () => {
  const under = { lo: 100, hi: 199, rows: 80 };
  it("joins the folder's own row to its descendants' span where they touch", () => {
    expect(pathSpans(under, [99])).toEqual([{ lo: 99, hi: 199, rows: 81 }]);
    expect(pathSpans(under, [200])).toEqual([{ lo: 100, hi: 200, rows: 81 }]);
  });
  it("keeps it apart where they do not: a top folder's row, written long before them", () => {
    expect(pathSpans(under, [5])).toEqual([under, { lo: 5, hi: 5, rows: 1 }]);
  });
  it("is the folder's row alone for an empty folder, and the empty span without either", () => {
    const none = { lo: 1, hi: 0, rows: 0 };
    expect(pathSpans(none, [42])).toEqual([{ lo: 42, hi: 42, rows: 1 }]);
    expect(pathSpans(none, [])).toEqual([none]);
    expect(pathSpans(under, [])).toEqual([under]);
  });
});
