import Database from "better-sqlite3";
import { afterAll, describe, expect, it } from "vitest";
import { MIGRATIONS } from "../../src/db/migrations/index.ts";
import { sizeBucket } from "../../src/db/size-bucket.ts";
import { ALL_LETTERS, foldedGlob, foldText, likeContains } from "../../src/domain/search/fold.ts";
import { registerFoldContains } from "../../src/domain/search/search.match.ts";
import {
  countQuery,
  ftsExpression,
  MAX_TERMS,
  pageQuery,
  phraseTrigrams,
  SIZE_BUCKET,
  searchOrder,
  shortTermCondition,
  sizeBucketOf,
  splitTerms,
  termExpression,
} from "../../src/domain/search/search.query.ts";
import { parseIsoDate, type SearchSpec } from "../../src/domain/search/search.schemas.ts";
import { parseSearchInput } from "../../src/domain/search/search.service.ts";

const spec = (over: Partial<SearchSpec> = {}): SearchSpec => ({
  text: "",
  tagIds: [],
  limit: 50,
  offset: 0,
  sortBy: "name",
  sortOrder: "asc",
  ...over,
});

describe("foldText", () => {
  it("drops accents and case", () => {
    expect(foldText("Amélie ÉCOLE Zoë Ångström")).toBe("amelie ecole zoe angstrom");
    expect(foldText("Крёстный")).toBe("крестныи");
    expect(foldText("東京")).toBe("東京");
  });
});

describe("foldedGlob / likeContains", () => {
  it("widens letters typed with accents to their variants and brackets GLOB metacharacters", () => {
    const g = foldedGlob("é*")!;
    expect(g.endsWith("[*]*")).toBe(true);
    const c = new Database(":memory:");
    const glob = (text: string) => (c.prepare("SELECT ? GLOB ? AS ok").get(text, g) as { ok: number }).ok;
    // Classes of runs of code points as ranges ("È-Ë"), which SQLite reads for what they hold.
    for (const text of ["É*", "xe*y", "ë*", "ẹ*", "Ȩ*"]) expect(glob(text), text).toBe(1);
    for (const text of ["é", "f*", "ê"]) expect(glob(text), text).toBe(0);
    c.close();
    expect(foldedGlob("42")).toBeUndefined();
  });
  it("escapes LIKE wildcards", () => {
    expect(likeContains("100%_a\\b")).toBe("%100\\%\\_a\\\\b%");
  });
});

describe("splitTerms", () => {
  it("splits on white space, dedupes ignoring case and accents, routes short terms away from FTS", () => {
    expect(splitTerms("  Holiday 2019 holiday HOLIDAY é É 42 ")).toEqual({
      fts: ['"Holiday"', '"2019"'],
      viaFolders: [],
      short: ["é", "42"],
      none: false,
    });
  });
  it("turns short terms into the OR of the trigrams the index says begin with them", () => {
    const index: Record<string, string[] | undefined> = {
      zo: ["zoe", 'zo"'],
      "42": ["42 "],
      e: undefined,
      qq: [],
    };
    const expand = (t: string) => index[t];
    expect(splitTerms("zo 42 holiday", expand)).toEqual({
      fts: ['("zoe" OR "zo""")', '"42 "', '"holiday"'],
      viaFolders: [],
      short: [],
      none: false,
    });
    // Too many trigrams to OR: left for a scan; none at all: nothing can match.
    expect(splitTerms("e zo", expand)).toMatchObject({ short: ["e"], none: false });
    expect(splitTerms("qq zo", expand).none).toBe(true);
  });
  it("caps the number of terms", () => {
    const text = Array.from({ length: 40 }, (_, i) => `term${i}`).join(" ");
    expect(splitTerms(text).fts).toHaveLength(MAX_TERMS);
  });
  it("counts code points, not UTF-16 units", () => {
    expect(splitTerms("東京").short).toEqual(["東京"]);
    expect(splitTerms("東京都").fts).toEqual(['"東京都"']);
    expect(splitTerms("🎉🎉").short).toEqual(["🎉🎉"]);
  });
});

describe("termExpression", () => {
  it("ORs the spellings of Greek and Cyrillic letters whose accents the index keeps", () => {
    const spellings = (term: string) =>
      [...termExpression(term).matchAll(/"([^"]*)"/g)].map((m) => m[1]).sort();
    // Typed with the accents or without, in either case: the same spellings, the name's among them.
    expect(spellings("αθηνα")).toContain("αθήνα");
    expect(spellings("ΑΘΗΝΑ").map((s) => s!.toLowerCase())).toEqual(spellings("Αθήνα"));
    expect(spellings("αθηνα")).toHaveLength(8);
    expect(spellings("крестный")).toEqual(spellings("крёстный"));
    expect(spellings("крестный")).toContain("крёстный");
  });
  it("leaves Latin (the tokenizer folds it), other scripts and quotes as a phrase", () => {
    expect(termExpression("Amélie")).toBe('"Amélie"');
    expect(termExpression("東京都")).toBe('"東京都"');
    expect(termExpression('a"b')).toBe('"a""b"');
  });
  it("gives the term as typed past MAX_SPELLINGS", () => {
    expect(termExpression("αεηιουω αεηιουω")).toBe('"αεηιουω αεηιουω"');
  });
});

describe("ftsExpression", () => {
  it("quotes every term so input is never FTS syntax", () => {
    expect(ftsExpression(splitTerms('a"b NOT x**').fts)).toBe('"a""b" AND "NOT" AND "x**"');
    expect(ftsExpression(splitTerms("holiday").fts, "name")).toBe('name : ("holiday")');
  });
});

describe("phraseTrigrams", () => {
  it("lists a quoted term's trigrams, quoted", () => {
    expect(phraseTrigrams('"s01e03"')).toEqual(['"s01"', '"01e"', '"1e0"', '"e03"']);
    expect(phraseTrigrams('"a""bc"')).toEqual(['"a""b"', '"""bc"']);
    expect(phraseTrigrams('"東京夜景"')).toEqual(['"東京夜"', '"京夜景"']);
  });
  it("lists none for one trigram, OR-ed trigrams and combining marks", () => {
    expect(phraseTrigrams('"s03"')).toEqual([]);
    expect(phraseTrigrams('("zoa" OR "zob")')).toEqual([]);
    expect(phraseTrigrams(`"${"Ame\u0301lie".normalize("NFD")}"`)).toEqual([]);
  });
});

describe("shortTermCondition", () => {
  const c = new Database(":memory:");
  registerFoldContains(c);
  afterAll(() => c.close());
  const has = (text: string, term: string, rare = true, marks = true) => {
    const q = shortTermCondition("t", term, { rare, marks });
    return (
      c.prepare(`SELECT (${q.sql}) AS ok FROM (SELECT ? AS t)`).get(...q.params, text) as { ok: number }
    ).ok;
  };

  it("uses instr for caseless terms, LIKE for letters, and the GLOBs of their variants on non-ASCII rows", () => {
    const common = { rare: false, marks: false };
    expect(shortTermCondition("f.path", "42", ALL_LETTERS)).toEqual({
      sql: "instr(f.path, ?) > 0",
      params: ["42"],
    });
    for (const term of ["Ab", "Ö"]) {
      const q = shortTermCondition("f.path", term, common);
      expect(
        q.sql.startsWith("(f.path LIKE ? ESCAPE '\\' OR (length(f.path) <> octet_length(f.path) AND "),
      ).toBe(true);
      expect(q.params[0]).toBe(term === "Ab" ? "%ab%" : "%o%");
    }
    // Typed plain or with an accent, the letters' accented variants match.
    expect(has("/x/Ráb", "Ab")).toBe(1);
    expect(has("/x/RAB", "áb")).toBe(1);
    expect(has("/x/Rôme", "Ö")).toBe(1);
    expect(has("/x/Rome", "ö")).toBe(1);
    expect(has("/x/Räb", "ob")).toBe(0);
    // Vietnamese letters (Latin Extended Additional and B), tried when the organization has them.
    expect(has("/x/Hà Nội", "ội")).toBe(1);
    expect(has("/x/Hà Nội", "oi")).toBe(1);
    expect(has("/x/Phở", "ơ")).toBe(1);
    expect(has("/x/Phở", "o")).toBe(1);
    expect(has("/x/Hà Nội", "oi", false)).toBe(0);
    // A later letter of the term is one of them: the patterns led by its first letter find it.
    expect(has("/x/Nội", "NO")).toBe(1);
    expect(has("/x/Nội", "NO", false)).toBe(0);
    // Stored decomposed (NFD), when the organization has such names.
    expect(has("/x/Ame\u0301lie", "el")).toBe(1);
    expect(has("/x/Ame\u0301lie", "él")).toBe(1);
    expect(has("/x/Ame\u0301lie", "el", true, false)).toBe(0);
  });
});

describe("search SQL", () => {
  it("scopes to the organization and live rows, joins FTS only for long terms", () => {
    const c = countQuery("org-1", spec({ text: "holiday 42" }));
    expect(c.sql).toContain("files_fts MATCH ?");
    expect(c.sql).toContain("f.organization_id = ?");
    expect(c.sql).toContain("f.is_deleted = 0");
    expect(c.params).toEqual(['"holiday"', "org-1", "42"]);
    expect(countQuery("org-1", spec({ text: "42" })).sql).not.toContain("files_fts");
  });
  it("binds every filter as a parameter", () => {
    const q = pageQuery(
      "o",
      spec({
        path: "/Photos",
        type: "file",
        minSize: 1,
        maxSize: 2,
        startDate: "2020-01-01T00:00:00.000Z",
        endDate: "2021-01-01T00:00:00.000Z",
        tagIds: ["t1", "t2"],
      }),
      10,
      20,
    );
    expect(q.sql).not.toMatch(/Photos|2020|t1/);
    expect(q.params).toEqual([
      "t1",
      "t2",
      2,
      "o",
      "/Photos",
      "/Photos0",
      "/Photos",
      "/Photos/",
      "file",
      1,
      2,
      "2020-01-01T00:00:00.000Z",
      "2021-01-01T00:00:00.000Z",
      10,
      20,
    ]);
  });
  it("orders with a stable tie-break and ranks name matches first for relevance", () => {
    expect(searchOrder(spec({ sortBy: "size", sortOrder: "desc" })).sql).toMatch(
      /^f\.size DESC, .*f\.id DESC$/,
    );
    const rel = searchOrder(spec({ sortBy: "relevance", text: "holiday x" }));
    expect(rel.sql).toMatch(
      /^CASE WHEN f\.rowid IN \(SELECT rowid FROM files_fts WHERE files_fts MATCH \?\) AND/,
    );
    expect(rel.params[0]).toBe('name : ("holiday")');
  });
});

describe("search input", () => {
  it("applies defaults and resolves aliases and paging", () => {
    expect(parseSearchInput({})).toMatchObject({
      text: "",
      limit: 50,
      offset: 0,
      sortBy: "name",
      sortOrder: "asc",
    });
    expect(
      parseSearchInput({ query: "x", file_type: "file", page: "3", page_size: "10", limit: "0" }),
    ).toMatchObject({
      text: "x",
      type: "file",
      limit: 10,
      offset: 20,
    });
    expect(parseSearchInput({ tags: " , " }).tagIds).toEqual([]);
    expect(() => parseSearchInput({ tags: "a,b" })).toThrow(/invalid tag id/);
  });
  it("accepts an RPC SearchQuery as protobuf-es gives it (int64 as bigint, empty strings, 0 limit)", () => {
    const rpc = {
      query: "holiday",
      path: "",
      file_type: "",
      tags: [],
      min_size: 10n,
      max_size: 20n,
      start_date: "",
      end_date: "",
      limit: 0,
      offset: 0,
      sort_by: "",
      sort_order: "",
    };
    expect(parseSearchInput(rpc)).toMatchObject({
      text: "holiday",
      minSize: 10,
      maxSize: 20,
      limit: 50,
      offset: 0,
      sortBy: "name",
      sortOrder: "asc",
      tagIds: [],
    });
  });
  it("normalizes path prefixes and tag lists", () => {
    expect(parseSearchInput({ path: "Photos//2019/" }).path).toBe("/Photos/2019");
    expect(parseSearchInput({ path: "/" }).path).toBeUndefined();
    const id = "0190a000-0000-7000-8000-000000000001";
    expect(parseSearchInput({ tags: `${id},${id}` }).tagIds).toEqual([id]);
    expect(parseSearchInput({ tags: [id] }).tagIds).toEqual([id]);
  });
  it("turns a bare end date into the end of that day", () => {
    expect(parseSearchInput({ end_date: "2024-01-31" }).endDate).toBe("2024-01-31T23:59:59.999Z");
    expect(parseSearchInput({ start_date: "2024-01-31T10:00:00+02:00" }).startDate).toBe(
      "2024-01-31T08:00:00.000Z",
    );
  });
});

describe("parseIsoDate", () => {
  it("refuses impossible dates instead of rolling them over", () => {
    expect(parseIsoDate("2024-02-29")?.at.toISOString()).toBe("2024-02-29T00:00:00.000Z");
    for (const bad of ["2023-02-29", "2024-13-01", "2024-01-01T24:00", "01/02/2024", "now", ""]) {
      expect(parseIsoDate(bad), bad).toBeUndefined();
    }
  });
});

describe("size buckets (files_live_size_bucket_idx)", () => {
  it("computes in JavaScript the bucket SQLite's index holds, in the order of sizes, as migration 0021 wrote it", () => {
    const db = new Database(":memory:");
    try {
      db.exec("CREATE TABLE t (size INTEGER NOT NULL)");
      const put = db.prepare<[number]>("INSERT INTO t (size) VALUES (?)");
      const bucket = {
        get: (size: number) => {
          db.exec("DELETE FROM t");
          put.run(size);
          return db.prepare(`SELECT ${sizeBucket("size")} AS k FROM t`).get() as { k: number };
        },
      };
      const sizes = [
        0,
        1,
        9,
        10,
        42,
        99,
        100,
        101,
        199,
        512,
        999,
        1000,
        1056,
        123_456,
        4_999_999,
        2 ** 40,
        2 ** 53 - 1,
      ];
      let previous = -1;
      for (const size of sizes) {
        const k = bucket.get(size).k;
        expect(k, String(size)).toBe(sizeBucketOf(size));
        expect(k, String(size)).toBeGreaterThanOrEqual(previous);
        previous = k;
      }
      // Below 100 bytes a size is a bucket of its own; above, the first two digits decide.
      expect(sizeBucketOf(42)).not.toBe(sizeBucketOf(43));
      expect(sizeBucketOf(12_345)).toBe(sizeBucketOf(12_999));
      expect(sizeBucketOf(12_999)).toBeLessThan(sizeBucketOf(13_000));
    } finally {
      db.close();
    }
    expect(MIGRATIONS.find((m) => m.id === 21)?.sql).toContain(sizeBucket("size"));
    expect(SIZE_BUCKET).toBe(`(${sizeBucket("f.size")})`);
  });
});
