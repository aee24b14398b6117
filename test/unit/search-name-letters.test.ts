import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Db } from "../../src/db/client.ts";
import { namesTextCondition } from "../../src/domain/search/search.dense.ts";
import { registerFoldContains, rowMatcher } from "../../src/domain/search/search.match.ts";
import { LARGE_FILE_BYTES } from "../../src/domain/search/search.query.ts";
import {
  createSearchRepo,
  DEFAULT_PLAN,
  type SearchPlanOptions,
} from "../../src/domain/search/search.repo.ts";
import { parseSearchInput } from "../../src/domain/search/search.service.ts";
import { newId } from "../../src/platform/ids.ts";
import { ONLY_GENERAL } from "../helpers/plan-compare.ts";
import { closeTempDb, openTempDb } from "../helpers/temp-db.ts";
import { seedTree } from "../helpers/tree-seed.ts";

/**
 * Vietnamese names (letters of Latin Extended-B and Additional: ơ, ư, ộ,
 * ồ), which the index folds as it folds "é", and names stored decomposed
 * (NFD): every plan, including those that test names in SQL (the dense
 * plan's walks, the folder-terms, subtree and large-file plans), finds
 * what the rows' own test finds.
 */
describe("search of names with rare letters or stored decomposed", () => {
  let dir: string;
  let db: Db;
  const org = newId();
  const plain = newId();
  const later = newId();

  beforeAll(() => {
    ({ dir, db } = openTempDb("attic-rare-", [org, plain, later]));
    const folders = [
      "/Photos/beach Hà Nội",
      "/Photos/Đồng Nai 2019",
      "/Music/Sơn Tùng",
      "/Docs/notes",
      "/Movies/Amélie".normalize("NFD"),
      "/Photos/hike Hà Nội".normalize("NFD"),
    ];
    const names = [
      "Phở bò %d.jpg",
      "IMG_%d.JPG",
      "Nội thất %d.png",
      "bài hát %d.mp3",
      "ong vàng %d.txt",
      "Ǫrn %d.txt",
      "Crème brûlée %d.jpg".normalize("NFD"),
    ];
    const entries = Array.from({ length: 240 }, (_, i) => ({
      path: `${folders[i % folders.length]}/${names[i % names.length]!.replace("%d", String(i % 37))}`,
      size: i % 5 === 0 ? LARGE_FILE_BYTES + i * 1000 : ((i * 7919) % 97) * 1000,
    }));
    seedTree(
      db,
      org,
      entries.filter((e, i) => entries.findIndex((x) => x.path === e.path) === i),
    );
    seedTree(db, plain, ["/Photos/Noi 1.jpg", "/Music/song.mp3", "/Music/Zoë.mp3"]);
  });
  afterAll(() => closeTempDb(dir, db));

  it("notes which organizations' names hold such letters, where rows are inserted and renamed", () => {
    const noted = (id: string) =>
      db.$client
        .prepare("SELECT kind FROM org_name_letters WHERE organization_id = ? ORDER BY 1")
        .pluck()
        .all(id) as string[];
    expect(noted(org)).toEqual(["marks", "rare"]);
    expect(noted(plain)).toEqual([]);
    // A rename (the trigger on names) notes the organization too.
    const rename = db.$client.prepare("UPDATE files SET name = ? WHERE organization_id = ? AND name = ?");
    rename.run("Nội.jpg", plain, "Noi 1.jpg");
    expect(noted(plain)).toEqual(["rare"]);
    rename.run("Zoe\u0308.mp3", plain, "Zoë.mp3");
    expect(noted(plain)).toEqual(["marks", "rare"]);
  });

  it("reads the organization's letters again once the database changed", () => {
    // One repository throughout: what it kept of the first search must not answer the second.
    seedTree(db, later, ["/Bai/note.txt"]);
    // The subtree plan tests the letter on each row of the folder in SQL, with the organization's letters.
    const repo = createSearchRepo(db, { ...ONLY_GENERAL, subtree: true, subtreeMinMatches: 1 });
    const ids = () => {
      const spec = parseSearchInput({ q: "ơ", path: "/Bai" });
      const page = repo.page(later, spec, spec.limit, spec.offset);
      expect(page.plan).toBe("subtree");
      return page.ids;
    };
    expect(ids()).toHaveLength(1);
    // "ở" (Latin Extended Additional) folds to "o": found only by the rare letters' pattern.
    const added = seedTree(db, later, ["/Bai/Phở.txt"]).get("/Bai/Phở.txt")!;
    expect(ids()).toContain(added);
  });

  it("finds them by a term typed with or without marks, in every plan", () => {
    const live = db.$client
      .prepare("SELECT id, path, name, type FROM files WHERE organization_id = ? AND is_deleted = 0")
      .all(org) as { id: string; path: string; name: string; type: string }[];
    const plans: Record<string, SearchPlanOptions> = {
      default: DEFAULT_PLAN,
      dense: { ...DEFAULT_PLAN, span: false, denseMinTotal: 0, denseMinHits: 1, large: false, sizes: false },
      folders: { ...ONLY_GENERAL, folders: true },
      runs: { ...ONLY_GENERAL, folders: true, runs: true },
      subtree: { ...ONLY_GENERAL, subtree: true, subtreeMinMatches: 1 },
      span: { ...ONLY_GENERAL, span: true },
      large: { ...ONLY_GENERAL, large: true },
      general: ONLY_GENERAL,
    };
    const cases: Record<string, unknown>[] = [];
    const words = ["oi", "ong", "noi", "ơ", "o", "pho bo", "ộ", "nội", "son tung", "ha noi", "ai", "u"];
    for (const q of [
      ...words,
      "amelie",
      "ame",
      "me",
      "creme brulee",
      "brû",
      "hike noi",
      "Amélie".normalize("NFD"),
    ]) {
      cases.push({ q }, { q, sort_by: "name" }, { q, sort_by: "created_at", sort_order: "desc" });
      cases.push({ q, sort_by: "relevance" }, { q, sort_by: "size", sort_order: "asc" });
      cases.push({ q, path: "/Photos" }, { q, path: "/Photos", sort_by: "name" });
      cases.push({ q, min_size: String(LARGE_FILE_BYTES) });
    }
    const answered = new Set<string>();
    let found = 0;
    for (const input of cases) {
      const spec = parseSearchInput({ ...input, limit: "1000" });
      const matches = rowMatcher(spec.text.split(/\s+/));
      const expected = live
        .filter((r) => matches(r.path, r.name, r.type === "directory"))
        .filter((r) => !spec.path || r.path === spec.path || r.path.startsWith(`${spec.path}/`))
        .filter((r) => spec.minSize === undefined || (r.type !== "directory" && sizeOf(r.id) >= spec.minSize))
        .map((r) => r.id)
        .sort();
      if (expected.length > 0) found++;
      for (const [name, options] of Object.entries(plans)) {
        const page = createSearchRepo(db, options).page(org, spec, spec.limit, spec.offset);
        answered.add(page.plan);
        expect([...page.ids].sort(), `${name} ${page.plan} ${JSON.stringify(input)}`).toEqual(expected);
      }
    }
    expect(found).toBeGreaterThan(cases.length * 0.8);
    // The plans that test terms in SQL did answer.
    for (const plan of ["dense", "folders", "subtree", "large", "general"]) expect(answered).toContain(plan);
  });

  const sizeOf = (id: string) =>
    (db.$client.prepare("SELECT size FROM files WHERE id = ?").pluck().get(id) as number) ?? 0;

  it("tests names in SQL exactly as the rows' own test does, where it can", () => {
    const c = db.$client;
    registerFoldContains(c);
    const names = [
      "Phở bò 1.jpg",
      "beach Hà Nội",
      "Amélie".normalize("NFD"),
      "Crème brûlée 2.jpg",
      "Крёстный отец",
      "Αθήνα 2004",
      "東京 夜景",
      "IMG_0001.JPG",
      "Straße",
      "Ґанок",
      "draft (v2).pdf",
    ];
    const terms = [
      "b",
      "a b",
      "é",
      "ha noi",
      "ơ",
      "AMÉLIE",
      "creme",
      "ё",
      "αθηνα",
      "東京",
      "img_0",
      "(v2",
      "2",
    ];
    for (const q of terms) {
      const spec = { ...parseSearchInput({ q }), letters: { rare: true, marks: true } };
      const cond = namesTextCondition(spec)!;
      const matches = rowMatcher(spec.text.split(/\s+/));
      for (const name of names) {
        const got = c
          .prepare(`SELECT (${cond.sql}) AS ok FROM (SELECT ? AS name) AS f`)
          .pluck()
          .get(...cond.params, name);
        expect(got === 1, `${q} in ${name}`).toBe(matches(name, name, true));
      }
    }
    // Where SQL cannot test as the rows' test does: a term with "/", letters whose case the
    // classes do not hold, a mark the rows' test drops.
    for (const q of ["a/b", "ґ", "Ａ", "क़"])
      expect(namesTextCondition(parseSearchInput({ q })), q).toBeUndefined();
  });
});
