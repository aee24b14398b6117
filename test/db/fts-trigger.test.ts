import { afterAll, describe, expect, it } from "vitest";
import { closeTempDb, openTempDb } from "../helpers/temp-db.ts";
import { seedTree } from "../helpers/tree-seed.ts";

/**
 * The search index follows a row's indexed text (its name, and a
 * directory's path) and nothing else: a folder's move or rename rewrites
 * the path of every row below it, which must not rewrite their index
 * entries (migration 0017).
 */
describe("search index update trigger", () => {
  const org = "0190a000-0000-7000-8000-00000000000f";
  const { dir, db } = openTempDb("attic-fts-", [org]);
  const c = db.$client;
  const ids = seedTree(db, org, ["/Photos/2019/beach.jpg", "/Photos/2019/sea.jpg", "/Docs/notes.txt"]);
  afterAll(() => closeTempDb(dir, db));

  /** The index's stored pages: any write to the index adds or changes some. */
  const index = () =>
    c.prepare("SELECT count(*) AS n, total(length(block)) AS bytes FROM files_fts_data").get();
  const matches = (q: string) =>
    (c.prepare("SELECT count(*) AS n FROM files_fts WHERE files_fts MATCH ?").get(q) as { n: number }).n;
  const setPath = (path: string, to: string) =>
    c.prepare("UPDATE files SET path = ? WHERE id = ?").run(to, ids.get(path));

  it("leaves the index alone when only a file's path changes", () => {
    const before = index();
    c.transaction(() => {
      setPath("/Photos/2019/beach.jpg", "/Archive/2019/beach.jpg");
      setPath("/Photos/2019/sea.jpg", "/Archive/2019/sea.jpg");
    })();
    expect(index()).toEqual(before);
    expect(matches('name : "beach"')).toBe(1);
  });

  it("rewrites the entries of a directory's path, a new name and a new type", () => {
    const before = index();
    setPath("/Photos/2019", "/Archive/2019");
    expect(index()).not.toEqual(before);
    expect(matches('path : "archive"')).toBe(1);
    expect(matches('path : "photos"')).toBe(1); // "/Photos" itself
    c.prepare("UPDATE files SET name = 'shore.jpg' WHERE id = ?").run(ids.get("/Photos/2019/beach.jpg"));
    expect(matches('name : "shore"')).toBe(1);
    expect(matches('name : "beach"')).toBe(0);
    c.prepare("UPDATE files SET type = 'directory' WHERE id = ?").run(ids.get("/Docs/notes.txt"));
    expect(matches('path : "notes"')).toBe(1);
    // FTS5 checks its entries against the rows' text; it throws on any difference.
    expect(() =>
      c.prepare("INSERT INTO files_fts(files_fts, rank) VALUES ('integrity-check', 1)").run(),
    ).not.toThrow();
  });
});
