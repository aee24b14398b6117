import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SearchService } from "../../src/gen/attic/v1/search_pb.ts";
import { startServer, type TestServer } from "../helpers/server.ts";
import { orgOfToken, seedOrgUser, seedTree } from "../helpers/tree-seed.ts";
import { rpcClient } from "../rpc/clients.ts";

// Files are seeded straight into the `files` table (test/helpers/tree-seed.ts):
// the FTS index is kept by triggers on that table, whichever code writes it.

const TREE = [
  { path: "/Photos/Holiday 2019/IMG_0042.jpg", size: 3_000_000, created_at: "2019-08-01T10:00:00.000Z" },
  { path: "/Photos/Holiday 2019/IMG_0043.jpg", size: 2_500_000, created_at: "2019-08-02T10:00:00.000Z" },
  { path: "/Photos/Holiday 2021/beach.jpg", size: 1_000_000, created_at: "2021-07-01T10:00:00.000Z" },
  { path: "/Photos2/holiday-notes.txt", size: 1_200, created_at: "2022-01-01T00:00:00.000Z" },
  { path: "/TV/Show.Name.S01E03.1080p.mkv", size: 900_000_000, created_at: "2023-03-03T00:00:00.000Z" },
  { path: "/Movies/Amélie (2001).mkv", size: 700_000_000, created_at: "2020-05-05T00:00:00.000Z" },
  { path: "/Music/Zoë/01. Track.flac", size: 30_000_000, created_at: "2020-06-06T00:00:00.000Z" },
  { path: "/Docs/invoice-2021-03.pdf", size: 50_000, created_at: "2021-03-31T12:00:00.000Z" },
  { path: "/Docs/100%_done.txt", size: 10, created_at: "2021-04-01T00:00:00.000Z" },
  { path: "/Docs/1000 done.txt", size: 20, created_at: "2021-04-02T00:00:00.000Z" },
  { path: "/Docs/東京 夜景.txt", size: 5, created_at: "2018-01-01T00:00:00.000Z" },
];

describe("GET /api/v1/search", () => {
  let s: TestServer;
  let token: string;
  let orgId: string;
  let ids: Map<string, string>;
  const search = async (query: string, t = token) => s.api("GET", `/api/v1/search?${query}`, { token: t });
  const names = async (query: string) => {
    const r = await search(query);
    expect(r.status, r.text).toBe(200);
    return (r.body.files as { name: string }[]).map((f) => f.name);
  };

  beforeAll(async () => {
    s = await startServer();
    token = await s.login();
    orgId = orgOfToken(token);
    ids = seedTree(s.server.ctx.db, orgId, TREE);
  });
  afterAll(() => s.close());

  it("answers the SearchResult shape with File records", async () => {
    const r = await search("q=beach");
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({
      total: 1,
      page: 1,
      page_size: 50,
      total_pages: 1,
      total_is_estimate: false,
    });
    expect(r.body.files[0]).toMatchObject({
      id: ids.get("/Photos/Holiday 2021/beach.jpg"),
      name: "beach.jpg",
      path: "/Photos/Holiday 2021/beach.jpg",
      parent_id: ids.get("/Photos/Holiday 2021"),
      type: "file",
      size: 1_000_000,
      tags: [],
      is_deleted: false,
    });
  });

  it("matches any part of name or path, case-insensitively, every word", async () => {
    expect(await names("q=HOLIDAY%202019")).toEqual(["Holiday 2019", "IMG_0042.jpg", "IMG_0043.jpg"]);
    expect(await names("q=s01e03")).toEqual(["Show.Name.S01E03.1080p.mkv"]);
    expect(await names("q=invoice")).toEqual(["invoice-2021-03.pdf"]);
    expect(await names("q=tos/Holi")).toEqual(expect.arrayContaining(["Holiday 2019", "beach.jpg"]));
    // Through every folder above a file, however deep; not across the last "/" (docs/api.md).
    expect(await names("q=photos")).toEqual(
      expect.arrayContaining(["Holiday 2019", "IMG_0042.jpg", "beach.jpg"]),
    );
    expect(await names("q=photos%20IMG_0042")).toEqual(["IMG_0042.jpg"]);
    expect(await names("q=2019/IMG")).toEqual([]);
    expect(await names("q=nothing-like-this")).toEqual([]);
  });

  it("is accent-insensitive for long and short queries", async () => {
    expect(await names("q=amelie")).toEqual(["Amélie (2001).mkv"]);
    expect(await names("q=AMÉLIE")).toEqual(["Amélie (2001).mkv"]);
    expect(await names("q=zoe")).toEqual(["01. Track.flac", "Zoë"]);
    expect(await names("q=OË")).toEqual(["01. Track.flac", "Zoë"]);
    expect(await names("q=ë")).toEqual(expect.arrayContaining(["Zoë", "Amélie (2001).mkv", "beach.jpg"]));
    // Short terms are folded too: they are answered from the folded trigram index.
    expect(await names("q=oe")).toEqual(["01. Track.flac", "Zoë"]);
    expect(await names("q=OË")).toEqual(["01. Track.flac", "Zoë"]);
    expect(await names("q=Ö")).toEqual(await names("q=o"));
  });

  it("answers queries shorter than a trigram, with LIKE wildcards taken literally", async () => {
    expect(await names("q=42")).toEqual(["IMG_0042.jpg"]);
    expect(await names("q=%25")).toEqual(["100%_done.txt"]);
    expect(await names("q=_d")).toEqual(["100%_done.txt"]);
    expect(await names("q=x%20jpg")).toEqual([]);
    expect(await names("q=43%20jpg")).toEqual(["IMG_0043.jpg"]);
    expect(await names("q=東京")).toEqual(["東京 夜景.txt"]);
    expect(await names("q=G_")).toEqual(["IMG_0042.jpg", "IMG_0043.jpg"]);
    // One CJK character, two terms of which one is short, and a character no name holds.
    expect(await names("q=景")).toEqual(["東京 夜景.txt"]);
    expect(await names("q=g%20景")).toEqual([]);
    expect(await names("q=Ж")).toEqual([]);
  });

  it("never reads the query as FTS syntax", async () => {
    for (const q of [
      '"',
      'a"b',
      "AND",
      "NOT holiday",
      "hol*",
      "(x",
      "name:holiday",
      "NEAR(a b)",
      "^abc",
      "-",
    ]) {
      const r = await search(`q=${encodeURIComponent(q)}`);
      expect(r.status, q).toBe(200);
    }
    expect(await names("q=hol*")).toEqual([]);
    for (const raw of [
      "%00%00%00",
      "a%00",
      "%ZZ",
      "%E0%A4%A",
      "%F0%9F%8E%89%F0%9F%8E%89",
      "%5C%5C%5C",
      "*?[",
      "[[[",
    ]) {
      const r = await search(`q=${raw}`);
      expect(r.status, raw).toBe(200);
    }
  });

  it("filters by path prefix at directory boundaries", async () => {
    expect(await names("path=/Photos&type=file")).toEqual(["beach.jpg", "IMG_0042.jpg", "IMG_0043.jpg"]);
    expect(await names("path=/Photos/&q=holiday&type=directory")).toEqual(["Holiday 2019", "Holiday 2021"]);
    expect(await names("path=Photos2")).toEqual(["holiday-notes.txt", "Photos2"]);
  });

  it("filters by type, size and creation date", async () => {
    expect(await names("type=directory&q=o")).toEqual(
      expect.arrayContaining(["Photos", "Holiday 2019", "Docs"]),
    );
    expect((await names("type=directory")).length).toBe(9);
    expect(await names("min_size=1000000&max_size=3000000")).toEqual([
      "beach.jpg",
      "IMG_0042.jpg",
      "IMG_0043.jpg",
    ]);
    expect(await names("type=file&start_date=2021-03-31&end_date=2021-04-01")).toEqual([
      "100%_done.txt",
      "invoice-2021-03.pdf",
    ]);
    expect(await names("type=file&start_date=2023-01-01T00:00:00Z")).toEqual(["Show.Name.S01E03.1080p.mkv"]);
  });

  it("sorts by name (default), size, dates and relevance", async () => {
    expect(await names("q=jpg")).toEqual(["beach.jpg", "IMG_0042.jpg", "IMG_0043.jpg"]);
    expect(await names("q=jpg&sort_order=desc")).toEqual(["IMG_0043.jpg", "IMG_0042.jpg", "beach.jpg"]);
    expect(await names("q=jpg&sort_by=size&sort_order=desc")).toEqual([
      "IMG_0042.jpg",
      "IMG_0043.jpg",
      "beach.jpg",
    ]);
    expect(await names("q=jpg&sort_by=created_at")).toEqual(["IMG_0042.jpg", "IMG_0043.jpg", "beach.jpg"]);
    expect(await names("q=jpg&sort_by=updated_at&sort_order=desc")).toEqual([
      "beach.jpg",
      "IMG_0043.jpg",
      "IMG_0042.jpg",
    ]);
    // Name matches ("Holiday 2019", "holiday-notes.txt") before path-only matches (the photos inside).
    const ranked = await names("q=holiday&sort_by=relevance");
    expect(new Set(ranked.slice(0, 3))).toEqual(
      new Set(["Holiday 2019", "Holiday 2021", "holiday-notes.txt"]),
    );
    expect(new Set(ranked.slice(3))).toEqual(new Set(["beach.jpg", "IMG_0042.jpg", "IMG_0043.jpg"]));
  });

  it("pages with limit/offset and page/page_size", async () => {
    const all = await names("type=file");
    expect(all).toHaveLength(TREE.length);
    const p = await search("type=file&limit=3&offset=3");
    expect(p.body).toMatchObject({ total: 11, page: 2, page_size: 3, total_pages: 4 });
    expect(p.body.files.map((f: { name: string }) => f.name)).toEqual(all.slice(3, 6));
    const q = await search("type=file&page=4&page_size=3");
    expect(q.body).toMatchObject({ total: 11, page: 4, page_size: 3, total_pages: 4 });
    expect(q.body.files.map((f: { name: string }) => f.name)).toEqual(all.slice(9));
    const beyond = await search("type=file&offset=50");
    expect(beyond.body).toMatchObject({ files: [], total: 11 });
  });

  it("refuses invalid parameters with 400 ERR_VALIDATION", async () => {
    for (const bad of [
      "start_date=yesterday",
      "end_date=2024-02-30",
      "start_date=2024-01-01T25:00:00Z",
      "min_size=-1",
      "max_size=abc",
      "min_size=10&max_size=5",
      "start_date=2024-02-01&end_date=2024-01-01",
      "limit=1001",
      "limit=-5",
      "offset=-1",
      "page=0",
      "sort_by=owner",
      "sort_order=up",
      "type=folder",
      "tags=not-an-id",
      `q=${"x".repeat(501)}`,
    ]) {
      const r = await search(bad);
      expect(r.status, bad).toBe(400);
      expect(r.body.error.code, bad).toBe("ERR_VALIDATION");
    }
  });

  it("needs authentication and file:read", async () => {
    expect((await s.api("GET", "/api/v1/search?q=x")).status).toBe(401);
    const { token: noRead } = await seedOrgUser(s, "no-read", ["org:read"], orgId);
    expect((await search("q=x", noRead)).status).toBe(403);
  });

  it("only sees the caller's organization", async () => {
    const other = await seedOrgUser(s, "other-org");
    seedTree(s.server.ctx.db, other.orgId, ["/Photos/Holiday 2019/secret.jpg"]);
    expect(await names("q=secret")).toEqual([]);
    const theirs = await search("q=holiday%202019", other.token);
    expect(theirs.body.files.map((f: { name: string }) => f.name)).toEqual(["Holiday 2019", "secret.jpg"]);
  });

  it("estimates a large total, and says so over REST and RPC alike", async () => {
    const big = await seedOrgUser(s, "big-library");
    const entries = Array.from({ length: 7000 }, (_, i) => `/Big/${Math.floor(i / 50)}/photo ${i}.jpg`);
    // In one transaction: row by row took ~5 s on a loaded CI machine, all of it on the event loop the
    // server and this client share, and the client then reused a kept-alive socket the server closed.
    const db = s.server.ctx.db;
    db.$client.transaction(() => seedTree(db, big.orgId, entries))();
    const r = await search("q=photo&limit=10", big.token);
    expect(r.status).toBe(200);
    expect(r.body.files).toHaveLength(10);
    expect(r.body.total_is_estimate).toBe(true);
    // An estimate from a sample: near the 7000 matches, and never below what the page shows.
    expect(r.body.total).toBeGreaterThan(5000);
    expect(r.body.total).toBeLessThan(9000);
    expect(r.body.total_pages).toBe(Math.ceil(r.body.total / 10));
    const rpc = rpcClient(s.url, SearchService, big.token);
    const { result } = await rpc.search({ query: { query: "photo", limit: 10 } });
    expect(result?.totalIsEstimate).toBe(true);
    expect(result?.total).toBe(BigInt(r.body.total));
    expect(result?.files.map((f) => f.id)).toEqual(r.body.files.map((f: { id: string }) => f.id));
    // A rare word's total stays exact.
    const exact = await search("q=photo%206999", big.token);
    expect(exact.body).toMatchObject({ total: 1, total_is_estimate: false });
  });

  it("counts attic_search_queries_total", async () => {
    const before = await s.api("GET", "/metrics");
    const count = (text: string) =>
      Number(/attic_search_queries_total\{transport="rest"\} (\d+)/.exec(text)?.[1] ?? 0);
    await search("q=beach");
    const after = await s.api("GET", "/metrics");
    expect(count(after.text)).toBe(count(before.text) + 1);
  });
});
