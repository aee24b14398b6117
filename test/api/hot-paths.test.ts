import { randomBytes } from "node:crypto";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createUser } from "../helpers/accounts.ts";
import { mkdir, upload } from "../helpers/files.ts";
import { startServer, type TestServer } from "../helpers/server.ts";

/**
 * The hot paths (src/http/hot-paths.ts) answer GET/HEAD of a file's record,
 * a listing, a download and a stream on the Node request; a cross-origin
 * request (any Origin header) still goes through the router. The same
 * request both ways must get the same status, body and headers (but for the
 * per-request ones and the CORS ones the router adds for an Origin).
 */
const PER_REQUEST = new Set(["date", "x-request-id", "x-ratelimit-remaining", "x-ratelimit-reset", "vary"]);

async function both(s: TestServer, method: string, path: string, headers: Record<string, string>) {
  const ask = async (extra: Record<string, string>) => {
    const res = await fetch(s.url + path, { method, headers: { ...headers, ...extra } });
    const body = Buffer.from(await res.arrayBuffer());
    const kept: Record<string, string> = {};
    res.headers.forEach((v, k) => {
      if (!PER_REQUEST.has(k) && !k.startsWith("access-control-")) kept[k] = v;
    });
    // The router leaves Content-Length off a HEAD of JSON; the hot path gives it.
    if (method === "HEAD" && kept["content-type"] === "application/json") delete kept["content-length"];
    return {
      status: res.status,
      headers: kept,
      body: body.toString("base64"),
      requestId: res.headers.get("x-request-id"),
    };
  };
  const hot = await ask({});
  const routed = await ask({ origin: "http://elsewhere.example" });
  return { hot, routed };
}

describe("hot paths answer as the router does", () => {
  let s: TestServer;
  let token: string;
  let other: string;
  let fileId: string;
  let dirId: string;
  let etag: string;
  const bytes = randomBytes(10_000);

  beforeAll(async () => {
    s = await startServer();
    token = await s.login();
    other = (await createUser(s, token, "olga")).token;
    dirId = (await mkdir(s, token, "Photos")).id;
    const up = await upload(s, token, "a b ü.bin", bytes, { parentId: dirId });
    fileId = up.body.id;
    for (let i = 0; i < 5; i++) await upload(s, token, `n${i}.txt`, `entry ${i}`, { parentId: dirId });
    const head = await s.api("GET", `/api/v1/files/${fileId}/download`, { token });
    etag = head.headers.get("etag") ?? "";
  });
  afterAll(() => s?.close());

  const cases: [string, string, () => string, () => Record<string, string>][] = [
    ["record", "GET", () => `/api/v1/files/${fileId}`, () => ({ authorization: `Bearer ${token}` })],
    ["record, HEAD", "HEAD", () => `/api/v1/files/${fileId}`, () => ({ authorization: `Bearer ${token}` })],
    [
      "listing",
      "GET",
      () => `/api/v1/files?parent_id=${dirId}&limit=3&offset=1`,
      () => ({ authorization: `Bearer ${token}` }),
    ],
    ["top listing", "GET", () => "/api/v1/files", () => ({ authorization: `Bearer ${token}` })],
    [
      "download",
      "GET",
      () => `/api/v1/files/${fileId}/download`,
      () => ({ authorization: `Bearer ${token}` }),
    ],
    [
      "download, HEAD",
      "HEAD",
      () => `/api/v1/files/${fileId}/download`,
      () => ({ authorization: `Bearer ${token}` }),
    ],
    [
      "range",
      "GET",
      () => `/api/v1/files/${fileId}/download`,
      () => ({ authorization: `Bearer ${token}`, range: "bytes=100-4195" }),
    ],
    [
      "suffix range",
      "GET",
      () => `/api/v1/files/${fileId}/download`,
      () => ({ authorization: `Bearer ${token}`, range: "bytes=-10" }),
    ],
    [
      "416",
      "GET",
      () => `/api/v1/files/${fileId}/download`,
      () => ({ authorization: `Bearer ${token}`, range: "bytes=20000-" }),
    ],
    [
      "304",
      "GET",
      () => `/api/v1/files/${fileId}/download`,
      () => ({ authorization: `Bearer ${token}`, "if-none-match": etag }),
    ],
    [
      "If-Range mismatch",
      "GET",
      () => `/api/v1/files/${fileId}/download`,
      () => ({ authorization: `Bearer ${token}`, range: "bytes=0-9", "if-range": '"nope"' }),
    ],
    [
      "stream of a non-media file",
      "GET",
      () => `/api/v1/files/${fileId}/stream`,
      () => ({ authorization: `Bearer ${token}` }),
    ],
    [
      "a directory's download",
      "GET",
      () => `/api/v1/files/${dirId}/download`,
      () => ({ authorization: `Bearer ${token}` }),
    ],
    [
      "missing id",
      "GET",
      () => "/api/v1/files/01900000-0000-7000-8000-000000000000",
      () => ({ authorization: `Bearer ${token}` }),
    ],
    [
      "another user's personal reach",
      "GET",
      () => `/api/v1/files/${fileId}`,
      () => ({ authorization: `Bearer ${other}` }),
    ],
    ["bad token", "GET", () => `/api/v1/files/${fileId}`, () => ({ authorization: "Bearer not.a.token" })],
    [
      "malformed Authorization",
      "GET",
      () => `/api/v1/files/${fileId}`,
      () => ({ authorization: "Basic abc" }),
    ],
    [
      "bad API key",
      "GET",
      () => `/api/v1/files/${fileId}/download`,
      () => ({ "x-api-key": "attic_nothing" }),
    ],
    ["bad limit", "GET", () => "/api/v1/files?limit=0", () => ({ authorization: `Bearer ${token}` })],
    [
      "parent not a directory",
      "GET",
      () => `/api/v1/files?parent_id=${fileId}`,
      () => ({ authorization: `Bearer ${token}` }),
    ],
    ["bad stream token", "GET", () => `/api/v1/files/${fileId}/download?st=forged`, () => ({})],
  ];

  for (const [name, method, path, headers] of cases) {
    it(name, async () => {
      const { hot, routed } = await both(s, method, path(), headers());
      expect(hot.requestId).toBeTruthy();
      expect({ ...hot, requestId: "" }).toEqual({ ...routed, requestId: "" });
    });
  }

  it("a stream token reads its own file, not another", async () => {
    const issued = await s.api("POST", `/api/v1/files/${fileId}/stream-token`, { token });
    const st = issued.body.token as string;
    const own = await both(s, "GET", `/api/v1/files/${fileId}/download?st=${st}`, { range: "bytes=0-99" });
    expect(own.hot.status).toBe(206);
    expect(Buffer.from(own.hot.body, "base64")).toEqual(bytes.subarray(0, 100));
    expect(own.hot).toEqual({ ...own.routed, requestId: own.hot.requestId });
    const another = (await s.api("GET", `/api/v1/files?parent_id=${dirId}`, { token })).body.files.find(
      (f: { id: string }) => f.id !== fileId,
    ).id;
    const stolen = await both(s, "GET", `/api/v1/files/${another}/download?st=${st}`, {});
    expect(stolen.hot.status).toBe(401);
    expect({ ...stolen.hot, requestId: "" }).toEqual({ ...stolen.routed, requestId: "" });
  });

  it("a listing follows every change at once, a write through another connection included", async () => {
    const names = async () =>
      (await s.api("GET", `/api/v1/files?parent_id=${dirId}&limit=100`, { token })).body.files.map(
        (f: { name: string }) => f.name,
      );
    expect(await names()).toContain("n0.txt");
    expect(await names()).toContain("n0.txt");
    const renamed = await s.api("PATCH", `/api/v1/files/${fileId}`, { token, body: { name: "renamed.bin" } });
    expect(renamed.status).toBe(200);
    expect(await names()).toContain("renamed.bin");
    // Another process (an `attic admin` command, a backup tool) writing the database file.
    const other = new Database(join(s.dataDir, "attic.db"));
    try {
      other.prepare("UPDATE files SET name = 'outside.txt' WHERE name = 'n0.txt'").run();
    } finally {
      other.close();
    }
    // Seen from the next turn of the server's event loop (the WAL's inotify event): at most a few polls.
    let after: string[] = [];
    for (let i = 0; i < 100 && !after.includes("outside.txt"); i++) after = await names();
    expect(after).toContain("outside.txt");
    expect(after).not.toContain("n0.txt");
    await upload(s, token, "late.txt", "late", { parentId: dirId });
    expect(await names()).toContain("late.txt");
    // The router's answer (an Origin header) is the same page.
    const routed = await s.api("GET", `/api/v1/files?parent_id=${dirId}&limit=100`, {
      token,
      headers: { origin: "http://elsewhere.example" },
    });
    expect(routed.body.files.map((f: { name: string }) => f.name)).toEqual(await names());
  });

  it("a record and a download follow every change at once, a write through another connection included", async () => {
    const up = await upload(s, token, "record.txt", "first", { parentId: dirId });
    const id = up.body.id as string;
    const record = async () => (await s.api("GET", `/api/v1/files/${id}`, { token })).body;
    const download = async () => {
      const res = await fetch(`${s.url}/api/v1/files/${id}/download`, {
        headers: { authorization: `Bearer ${token}` },
      });
      return { status: res.status, disposition: res.headers.get("content-disposition") ?? "" };
    };
    expect((await record()).name).toBe("record.txt");
    expect((await download()).disposition).toContain("record.txt");
    expect((await s.api("PATCH", `/api/v1/files/${id}`, { token, body: { name: "moved.txt" } })).status).toBe(
      200,
    );
    expect((await record()).name).toBe("moved.txt");
    expect((await download()).disposition).toContain("moved.txt");
    const other = new Database(join(s.dataDir, "attic.db"));
    try {
      other.prepare("UPDATE files SET name = 'elsewhere.txt' WHERE id = ?").run(id);
      let name = "";
      for (let i = 0; i < 100 && name !== "elsewhere.txt"; i++) name = (await record()).name;
      expect(name).toBe("elsewhere.txt");
      expect((await download()).disposition).toContain("elsewhere.txt");
      other.prepare("UPDATE files SET is_deleted = 1 WHERE id = ?").run(id);
    } finally {
      other.close();
    }
    let status = 200;
    for (let i = 0; i < 100 && status === 200; i++) status = (await download()).status;
    expect(status).toBe(404);
    expect((await s.api("GET", `/api/v1/files/${id}`, { token })).status).toBe(404);
  });

  it("a record's tags are the listing's, by name", async () => {
    const ids: string[] = [];
    for (const name of ["zeta", "Alpha", "mid"]) {
      const t = await s.api("POST", "/api/v1/tags", { token, body: { name, color: "#112233" } });
      expect(t.status).toBe(201);
      ids.push(t.body.id);
    }
    expect(
      (await s.api("POST", `/api/v1/files/${fileId}/tags`, { token, body: { tag_ids: ids } })).status,
    ).toBe(200);
    const record = (await s.api("GET", `/api/v1/files/${fileId}`, { token })).body;
    expect(record.tags.map((t: { name: string }) => t.name)).toEqual(["Alpha", "mid", "zeta"]);
    const listed = (
      await s.api("GET", `/api/v1/files?parent_id=${dirId}&limit=100`, { token })
    ).body.files.find((f: { id: string }) => f.id === fileId);
    expect(record.tags).toEqual(listed.tags);
    expect(Object.keys(record.tags[0]).sort()).toEqual(["color", "created_at", "id", "name"]);
  });

  it("keeps a client's own request id", async () => {
    const res = await fetch(`${s.url}/api/v1/files/${fileId}`, {
      headers: { authorization: `Bearer ${token}`, "x-request-id": "trace-42" },
    });
    expect(res.headers.get("x-request-id")).toBe("trace-42");
    expect(res.headers.get("x-frame-options")).toBe("DENY");
  });
});

describe("hot paths under the per-user limit", () => {
  let s: TestServer;
  afterAll(() => s?.close());

  it("answers 429 with the limit's headers once the user's budget is spent", async () => {
    s = await startServer({ rate_limit: { user_per_minute: 3 } });
    const token = await s.login();
    const seen: number[] = [];
    for (let i = 0; i < 3; i++) seen.push((await s.api("GET", "/api/v1/files", { token })).status);
    const over = await s.api("GET", "/api/v1/files", { token });
    expect(seen).toEqual([200, 200, 200]);
    expect(over.status).toBe(429);
    expect(over.body.error.code).toBe("RATE_LIMIT_EXCEEDED");
    expect(over.headers.get("x-ratelimit-remaining")).toBe("0");
    expect(Number(over.headers.get("retry-after"))).toBeGreaterThan(0);
  });
});
