import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Db } from "../../src/db/client.ts";
import { directoriesByPath } from "../../src/domain/search/search.query.ts";
import { createSearchRepo, DEFAULT_PLAN } from "../../src/domain/search/search.repo.ts";
import { parseSearchInput, rowsInOrder } from "../../src/domain/search/search.service.ts";
import { newId } from "../../src/platform/ids.ts";
import { notedRepo } from "../helpers/plan-compare.ts";
import { closeTempDb, openTempDb } from "../helpers/temp-db.ts";
import { seedTree, softDeleteSome } from "../helpers/tree-seed.ts";

/**
 * Searches for directories only are matched against the directories' own
 * paths in the index (search.query.ts directoriesByPath): they must find
 * exactly the directories the same search finds among all rows.
 */
describe("searches for directories only", () => {
  let dir: string;
  let db: Db;
  const org = newId();

  beforeAll(() => {
    ({ dir, db } = openTempDb("attic-dirs-", [org]));
    seedTree(db, org, [
      "/Photos/2019/Holiday/IMG_1.jpg",
      "/Photos/2019/Holiday/Beach/IMG_2.jpg",
      "/Photos/2019/Wedding/IMG_3.jpg",
      "/Photos/2020/Holiday 2019 leftovers/IMG_4.jpg",
      "/Photos/Été/Plage/IMG_5.jpg",
      "/Music/Zoë Keating/Into the Trees/01. Escape Artist.flac",
      "/Music/Holiday Songs/02. Sleigh Ride.mp3",
      "/Docs/holiday-plan.txt",
      "/Docs/2019/taxes.pdf",
      "/Docs/Old/2019 holiday/receipt.pdf",
      { path: "/Docs/Empty holiday", type: "directory" },
    ]);
    softDeleteSome(db, org, 0, 2);
  });
  afterAll(() => closeTempDb(dir, db));

  const repo = () => createSearchRepo(db, { ...DEFAULT_PLAN, span: false, dense: false, broad: false });
  const paths = (input: Record<string, unknown>) => {
    const spec = parseSearchInput({ limit: 1000, ...input });
    const page = repo().page(org, spec, spec.limit, spec.offset);
    return { plan: page.plan, total: page.total, paths: rowsInOrder(db, org, page.ids).map((r) => r.path) };
  };
  const directories = (input: Record<string, unknown>) => {
    const spec = parseSearchInput({ limit: 1000, ...input });
    const page = repo().page(org, spec, spec.limit, spec.offset);
    return rowsInOrder(db, org, page.ids)
      .filter((r) => r.type === "directory")
      .map((r) => r.path);
  };

  it.each([
    "holiday",
    "2019",
    "holiday 2019",
    "photos 2019 holiday",
    "ete",
    "zoe trees",
    "Photos/2019",
    "19 ho",
    "jpg",
    "nothing-like-it",
  ])("%s: the directories the same search finds among all rows", (q) => {
    const only = paths({ q, type: "directory" });
    expect(only.plan).toBe("general");
    expect(only.paths).toEqual(directories({ q }));
    expect(only.total).toBe(only.paths.length);
    expect(paths({ q, type: "directory", sort_order: "desc" }).paths).toEqual([...only.paths].reverse());
  });

  it("finds directories by their folders' names and across levels, and nothing else", () => {
    expect(paths({ q: "holiday 2019", type: "directory" }).paths).toEqual([
      "/Docs/Old/2019 holiday",
      "/Photos/2019/Holiday/Beach",
      "/Photos/2019/Holiday",
      "/Photos/2020/Holiday 2019 leftovers",
    ]);
    expect(paths({ q: "jpg", type: "directory" }).total).toBe(0);
    expect(directoriesByPath(repo().resolve(parseSearchInput({ q: "e", type: "directory" })))).toBe(true);
    expect(directoriesByPath(repo().resolve(parseSearchInput({ q: "e", type: "file" })))).toBe(false);
  });
});

/**
 * A search of directories alone whose terms are all too short for the index
 * by themselves, each beginning many trigrams (search.query.ts
 * directoriesScanned): the directories are read and their paths tested.
 * They must be the directories the same search finds among all rows.
 */
describe("searches for directories only by letters that begin many trigrams", () => {
  let dir: string;
  let db: Db;
  const org = newId();

  beforeAll(() => {
    ({ dir, db } = openTempDb("attic-dirs-scan-", [org]));
    // "e" followed by 26 x 3 pairs of characters: "e" begins ~80 trigrams of the index.
    const letters = "abcdefghijklmnopqrstuvwxyz";
    seedTree(db, org, [
      ...[...letters].flatMap((l, i) => ["1", " ", "z"].map((n) => `/Many/E${l}${n}dir ${i}/f${i}.txt`)),
      "/Photos/Été 2019/Plage/IMG_5.jpg",
      "/Music/Zoë Keating/Into the Trees/01. Escape Artist.flac",
      "/Docs/Old/b 1 notes/receipt.pdf",
      { path: "/Docs/Empty é", type: "directory" },
    ]);
    softDeleteSome(db, org, 0, 3);
  });
  afterAll(() => closeTempDb(dir, db));

  const noted = () => notedRepo(db, { ...DEFAULT_PLAN, span: false, dense: false, broad: false });
  const search = (repo: ReturnType<typeof noted>["repo"], input: Record<string, unknown>) => {
    const spec = parseSearchInput({ limit: 1000, ...input });
    const page = repo.page(org, spec, spec.limit, spec.offset);
    return { plan: page.plan, total: page.total, rows: rowsInOrder(db, org, page.ids) };
  };

  it.each(["e", "E 1", "é z", "e b 1", "1"])(
    "%s: the directories the same search finds among all rows",
    (q) => {
      const { repo, ran } = noted();
      const only = search(repo, { q, type: "directory" });
      const all = search(repo, { q }).rows.filter((r) => r.type === "directory");
      expect(only.plan).toBe("general");
      expect(only.rows.map((r) => r.path)).toEqual(all.map((r) => r.path));
      expect(only.total).toBe(all.length);
      expect(only.total).toBeGreaterThan(0);
      const desc = search(repo, { q, type: "directory", sort_order: "desc" });
      expect(desc.rows.map((r) => r.path)).toEqual(all.map((r) => r.path).reverse());
      // "1" alone begins fewer trigrams here: asked of the index.
      const scanned = ran.some(
        (sql) => sql.includes("INDEXED BY files_live_dirs_idx") && sql.includes("count(*) OVER ()"),
      );
      expect(scanned).toBe(q !== "1");
    },
  );
});
