import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Db, openDb } from "../../src/db/client.ts";
import { organizations } from "../../src/db/schema.ts";
import { createSearchRepo, DEFAULT_PLAN, MAX_EXPANSION } from "../../src/domain/search/search.repo.ts";
import { parseSearchInput } from "../../src/domain/search/search.service.ts";
import { newId } from "../../src/platform/ids.ts";
import { seedTree } from "../helpers/tree-seed.ts";

/**
 * A one-letter term that begins too many trigrams to OR (more than
 * MAX_EXPANSION) is checked on every candidate row instead of through the
 * index (search.query.ts shortTermCondition). It must stay accent- and
 * case-insensitive there too: "e" finds "Zoë", whose only "e" is an "ë",
 * in every plan, as the index does for a library small enough to expand.
 */
describe("a short term checked row by row", () => {
  let dir: string;
  let db: Db;
  const org = newId();
  let ids: Map<string, string>;

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), "attic-short-"));
    db = openDb({ file: join(dir, "t.db") });
    const now = new Date().toISOString();
    db.insert(organizations).values({ id: org, name: "O", created_at: now, updated_at: now }).run();
    const letters = "abcdfghijklmnoprstuvwxyz";
    // Every "e" + two letters: 576 trigrams beginning with "e", past MAX_EXPANSION.
    const filler = [...letters].flatMap((a) => [...letters].map((b) => `/Docs/x${a}e${a}${b}.txt`));
    ids = seedTree(db, org, [
      ...filler,
      "/Music/Zoë/01. Track.flac",
      "/Music/ZOË.flac",
      "/Music/Zoo/01. Track.flac",
    ]);
  });
  afterAll(() => {
    db.$client.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const plans = {
    default: DEFAULT_PLAN,
    general: { ...DEFAULT_PLAN, span: false, dense: false, broad: false, folders: false, large: false },
    dense: {
      ...DEFAULT_PLAN,
      span: false,
      denseMinTotal: 0,
      denseMinHits: 1,
      denseMaxWalk: 1e9,
      large: false,
    },
  };

  it("is scanned, not expanded, for this library", () => {
    expect(MAX_EXPANSION).toBeLessThan(576);
    const spec = createSearchRepo(db).resolve(parseSearchInput({ q: "e" }));
    expect(spec.terms?.short).toEqual(["e"]);
  });

  for (const [name, plan] of Object.entries(plans)) {
    it(`finds names whose only "e" is accented, in either case (${name} plan)`, () => {
      const repo = createSearchRepo(db, plan);
      for (const q of ["e", "E", "ë"]) {
        const spec = parseSearchInput({ q, limit: 1000 });
        const found = new Set(repo.page(org, spec, 1000, 0).ids);
        for (const path of ["/Music/Zoë", "/Music/Zoë/01. Track.flac", "/Music/ZOË.flac", "/Docs/xaeab.txt"])
          expect(found.has(ids.get(path)!), `${q}: ${path}`).toBe(true);
        for (const path of ["/Music/Zoo", "/Music/Zoo/01. Track.flac", "/Music"])
          expect(found.has(ids.get(path)!), `${q}: ${path}`).toBe(false);
      }
    });
  }

  it("expands a short term again once the library changes", () => {
    const repo = createSearchRepo(db);
    const find = (q: string) => {
      const spec = parseSearchInput({ q, limit: 1000 });
      return repo.page(org, spec, 1000, 0).ids;
    };
    // "qz" begins no trigram yet; kept, that answer would hide the file added next.
    expect(find("qz")).toEqual([]);
    const added = seedTree(db, org, ["/Docs/aqzb.txt"]);
    expect(find("qz")).toEqual([added.get("/Docs/aqzb.txt")]);
  });
});
