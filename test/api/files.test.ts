import { createHash } from "node:crypto";
import { readdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { getBytes, mkdir, upload } from "../helpers/files.ts";
import { startServer, type TestServer } from "../helpers/server.ts";

const sha = (b: string | Uint8Array) => createHash("sha256").update(b).digest("hex");
const PNG = Buffer.from(
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==",
  "base64",
);

/** Every regular file under a directory, recursively. */
function filesUnder(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => join(e.parentPath, e.name));
}

describe("files: upload", () => {
  let s: TestServer;
  let token: string;
  beforeAll(async () => {
    s = await startServer({ storage: { max_upload_bytes: 4096 } });
    token = await s.login();
  });
  afterAll(() => s.close());

  it("answers 201 with the File record, readable by GET /files/:id", async () => {
    const r = await upload(s, token, "hello.txt", "hello world\n");
    expect(r.status, r.text).toBe(201);
    expect(r.body).toMatchObject({
      name: "hello.txt",
      path: "/hello.txt",
      type: "file",
      size: 12,
      mime_type: "text/plain",
      hash: sha("hello world\n"),
      permissions: "",
      tags: [],
      is_deleted: false,
      read_only: false,
      is_offline: false,
    });
    expect(r.body.parent_id).toBeUndefined();
    expect(r.body.deleted_at).toBeUndefined();
    for (const k of ["id", "created_at", "updated_at", "accessed_at"])
      expect(typeof r.body[k]).toBe("string");
    const got = await s.api("GET", `/api/v1/files/${r.body.id}`, { token });
    expect(got.status).toBe(200);
    expect(got.body).toEqual(r.body);
  });

  it("places the file under parent_id, directory_id, or parent_id in the query, before or after the file", async () => {
    const dir = await mkdir(s, token, "inbox");
    const a = await upload(s, token, "a.txt", "a", { parentId: dir.id });
    const b = await upload(s, token, "b.txt", "b", { fields: { directory_id: dir.id } });
    const c = await s.api("POST", `/api/v1/files?parent_id=${dir.id}`, {
      token,
      body: formWith("c.txt", "c"),
    });
    const after = formWith("d.txt", "d");
    after.append("parent_id", dir.id); // appended after the file part
    const d = await s.api("POST", "/api/v1/files", { token, body: after });
    for (const r of [a, b, c, d]) {
      expect(r.status, r.text).toBe(201);
      expect(r.body.parent_id).toBe(dir.id);
      expect(r.body.path).toBe(`/inbox/${r.body.name}`);
    }
  });

  it("sniffs the type from the content, not the name or the client's claim", async () => {
    const png = await upload(s, token, "not-really.txt", PNG, { type: "text/html" });
    expect(png.body.mime_type).toBe("image/png");
    const json = await upload(s, token, "data.json", '{"a":1}', { type: "image/png" });
    expect(json.body.mime_type).toBe("application/json");
    const bin = await upload(s, token, "blob", new Uint8Array([0, 1, 2, 255]));
    expect(bin.body.mime_type).toBe("application/octet-stream");
  });

  it("checks X-Content-SHA256 and the sha256 field: mismatch is 400 and nothing is stored", async () => {
    const ok = await upload(s, token, "sum-ok.txt", "checked", {
      headers: { "x-content-sha256": sha("checked") },
    });
    expect(ok.status).toBe(201);
    const okField = await upload(s, token, "sum-field.txt", "checked2", {
      fields: { sha256: sha("checked2") },
    });
    expect(okField.status).toBe(201);
    const before = filesUnder(join(s.dataDir, "blobs")).length;
    const bad = await upload(s, token, "sum-bad.txt", "tampered", {
      headers: { "x-content-sha256": sha("other") },
    });
    expect(bad.status).toBe(400);
    expect(bad.body.error.code).toBe("ERR_VALIDATION");
    const badField = await upload(s, token, "sum-bad2.txt", "tampered", {
      fields: { sha256: "0".repeat(64) },
    });
    expect(badField.status).toBe(400);
    expect(filesUnder(join(s.dataDir, "blobs"))).toHaveLength(before);
    expect(filesUnder(join(s.dataDir, "tmp"))).toEqual([]);
    const list = await s.api("GET", "/api/v1/files?limit=1000", { token });
    expect(list.body.files.map((f: { name: string }) => f.name)).not.toContain("sum-bad.txt");
  });

  it("stores identical content once", async () => {
    const before = filesUnder(join(s.dataDir, "blobs")).length;
    const one = await upload(s, token, "same-1.bin", "identical bytes");
    const two = await upload(s, token, "same-2.bin", "identical bytes");
    expect(one.body.hash).toBe(two.body.hash);
    const blobs = filesUnder(join(s.dataDir, "blobs"));
    expect(blobs).toHaveLength(before + 1);
    expect(blobs.filter((p) => p.endsWith(one.body.hash))).toHaveLength(1);
    const h = one.body.hash as string;
    expect(blobs).toContain(join(s.dataDir, "blobs", h.slice(0, 2), h.slice(2, 4), h));
  });

  it("answers 413 over storage.max_upload_bytes, by Content-Length or while counting", async () => {
    const big = await upload(s, token, "big.bin", new Uint8Array(100_000));
    expect(big.status).toBe(413);
    expect(big.body.error.code).toBe("ERR_PAYLOAD_TOO_LARGE");
    // Just over the limit: the declared length passes the first check, counting catches it.
    const over = await upload(s, token, "over.bin", new Uint8Array(4097));
    expect(over.status).toBe(413);
    const exact = await upload(s, token, "exact.bin", new Uint8Array(4096));
    expect(exact.status).toBe(201);
    expect(filesUnder(join(s.dataDir, "tmp"))).toEqual([]);
  });

  it("refuses bad names (400), taken names (409, also across Unicode spellings)", async () => {
    // (A backslash cannot be tested here: multipart quoting turns it into an escape; see the rename tests.)
    for (const bad of ["..", ".", "a..b", "x\u0001y", "a".repeat(256)]) {
      const r = await upload(s, token, bad, "x");
      expect(r.status, bad).toBe(400);
      expect(r.body.error.code).toBe("ERR_VALIDATION");
    }
    expect((await upload(s, token, "Cafe\u0301.txt", "1")).status).toBe(201);
    const clash = await upload(s, token, "Caf\u00e9.txt", "2");
    expect(clash.status).toBe(409);
    expect(clash.body.error.code).toBe("ERR_CONFLICT");
  });

  it("answers 400 without a file part or a multipart body, and 404 for a missing parent", async () => {
    const noFile = new FormData();
    noFile.set("parent_id", "");
    expect((await s.api("POST", "/api/v1/files", { token, body: noFile })).status).toBe(400);
    const notForm = await s.api("POST", "/api/v1/files", {
      token,
      body: "raw",
      headers: { "content-type": "text/plain" },
    });
    expect(notForm.status).toBe(400);
    const missing = await upload(s, token, "orphan.txt", "x", {
      parentId: "01900000-0000-7000-8000-000000000000",
    });
    expect(missing.status).toBe(404);
    const malformed = await upload(s, token, "orphan.txt", "x", { parentId: "nope" });
    expect(malformed.status).toBe(400);
    const file = await upload(s, token, "plain.txt", "x");
    const notDir = await upload(s, token, "inside.txt", "x", { parentId: file.body.id });
    expect(notDir.status).toBe(400);
  });

  it("answers 400 and keeps nothing when the form breaks off after the file part", async () => {
    const b = "XyZboundary";
    const body =
      `--${b}\r\nContent-Disposition: form-data; name="file"; filename="cut.txt"\r\n\r\n` +
      `complete file bytes\r\n--${b}\r\nContent-Disposition: form-da`;
    const r = await s.api("POST", "/api/v1/files", {
      token,
      body,
      headers: { "content-type": `multipart/form-data; boundary=${b}` },
    });
    expect(r.status).toBe(400);
    expect(r.body.error.code).toBe("ERR_VALIDATION");
    expect(filesUnder(join(s.dataDir, "tmp"))).toEqual([]);
    const list = await s.api("GET", "/api/v1/files?limit=1000", { token });
    expect(list.body.files.map((f: { name: string }) => f.name)).not.toContain("cut.txt");
  });

  it("requires authentication and counts uploads by status and type", async () => {
    const r = await s.api("POST", "/api/v1/files", { body: formWith("anon.txt", "x") });
    expect(r.status).toBe(401);
    const m = await s.api("GET", "/metrics");
    expect(m.text).toMatch(/attic_file_uploads_total\{status="success",mime_type="text\/plain"\} [1-9]/);
    expect(m.text).toMatch(/attic_file_uploads_total\{status="failure",mime_type="[^"]+"\} [1-9]/);
  });
});

describe("files: read paths", () => {
  let s: TestServer;
  let token: string;
  beforeAll(async () => {
    s = await startServer();
    token = await s.login();
  });
  afterAll(() => s.close());

  it("lists the top level with pagination, directories first, and a total", async () => {
    await mkdir(s, token, "zdir");
    for (const n of ["b.txt", "a.txt", "C.txt"]) await upload(s, token, n, n);
    const all = await s.api("GET", "/api/v1/files", { token });
    expect(all.status).toBe(200);
    expect(all.body.total).toBe(4);
    // Directories first, then names without regard to case.
    expect(all.body.files.map((f: { name: string }) => f.name)).toEqual(["zdir", "a.txt", "b.txt", "C.txt"]);
    const page = await s.api("GET", "/api/v1/files?limit=2&offset=1", { token });
    expect(page.body.files.map((f: { name: string }) => f.name)).toEqual(["a.txt", "b.txt"]);
    expect(page.body.total).toBe(4);
    for (const q of ["limit=0", "limit=abc", "offset=-1", "parent_id=bogus"]) {
      expect((await s.api("GET", `/api/v1/files?${q}`, { token })).status, q).toBe(400);
    }
  });

  it("answers 404 ERR_FILE_NOT_FOUND for unknown ids, 400 for malformed ones", async () => {
    const r = await s.api("GET", "/api/v1/files/01900000-0000-7000-8000-000000000000", { token });
    expect([r.status, r.body.error.code]).toEqual([404, "ERR_FILE_NOT_FOUND"]);
    for (const id of ["not-an-id", "%20", "01900000-0000-7000-8000-00000000000"]) {
      const bad = await s.api("GET", `/api/v1/files/${id}`, { token });
      expect([id, bad.status, bad.body.error.code]).toEqual([id, 400, "ERR_VALIDATION"]);
    }
  });

  it("answers a clean 404 (not a cut-off body) when a stored blob went missing on disk", async () => {
    const r = await upload(s, token, "lost-blob.txt", "soon gone");
    const hash = r.body.hash as string;
    rmSync(join(s.dataDir, "blobs", hash.slice(0, 2), hash.slice(2, 4), hash));
    for (const kind of ["download", "content"]) {
      const d = await s.api("GET", `/api/v1/files/${r.body.id}/${kind}`, { token });
      expect([kind, d.status, d.body.error.code]).toEqual([kind, 404, "ERR_FILE_NOT_FOUND"]);
    }
  });

  it("downloads byte-exact with safe headers, ETag and Last-Modified", async () => {
    const name = 'résumé "final";\r\nX-Evil: 1.pdf';
    const bytes = Buffer.from("%PDF-1.4 not really a pdf but bytes\n");
    const r = await upload(s, token, name.replace(/[\r\n]/g, ""), bytes);
    expect(r.status, r.text).toBe(201);
    const d = await getBytes(s, token, `/api/v1/files/${r.body.id}/download`);
    expect(d.status).toBe(200);
    expect(d.bytes.equals(bytes)).toBe(true);
    const cd = d.headers.get("content-disposition") ?? "";
    expect(cd).toMatch(/^attachment; filename="[\x20-\x7e]+"; filename\*=UTF-8''/);
    expect(cd).not.toMatch(/[\r\n]/);
    expect(decodeURIComponent(cd.split("filename*=UTF-8''")[1] ?? "")).toBe(r.body.name);
    expect(d.headers.get("x-evil")).toBeNull();
    expect(d.headers.get("x-content-type-options")).toBe("nosniff");
    expect(d.headers.get("content-security-policy")).toContain("sandbox");
    expect(d.headers.get("etag")).toBe(`"${r.body.hash.slice(0, 32)}"`);
    expect(d.headers.get("last-modified")).toBeTruthy();
    expect(d.headers.get("accept-ranges")).toBe("bytes");
    expect(d.headers.get("content-length")).toBe(String(bytes.length));
    expect(d.headers.get("x-frame-options")).toBe("DENY");
    expect(d.headers.get("x-request-id")).toBeTruthy();
  });

  it("answers 304 to If-None-Match and If-Modified-Since", async () => {
    const r = await upload(s, token, "cached.txt", "cache me");
    const path = `/api/v1/files/${r.body.id}/download`;
    const first = await getBytes(s, token, path);
    const etag = first.headers.get("etag") ?? "";
    const lm = first.headers.get("last-modified") ?? "";
    expect((await getBytes(s, token, path, { "if-none-match": etag })).status).toBe(304);
    expect((await getBytes(s, token, path, { "if-none-match": `"other", ${etag}` })).status).toBe(304);
    expect((await getBytes(s, token, path, { "if-none-match": '"other"' })).status).toBe(200);
    expect((await getBytes(s, token, path, { "if-modified-since": lm })).status).toBe(304);
    const old = new Date(Date.parse(lm) - 3600_000).toUTCString();
    expect((await getBytes(s, token, path, { "if-modified-since": old })).status).toBe(200);
  });

  it("serves /content for text and JSON only", async () => {
    const text = await upload(s, token, "note.md", "# Title\nünïcode\n");
    const c = await s.api("GET", `/api/v1/files/${text.body.id}/content`, { token });
    expect(c.status).toBe(200);
    expect(c.body).toEqual({ content: "# Title\nünïcode\n", mime_type: "text/markdown", encoding: "utf-8" });
    const json = await upload(s, token, "x.json", "[1,2]");
    expect((await s.api("GET", `/api/v1/files/${json.body.id}/content`, { token })).body.content).toBe(
      "[1,2]",
    );
    const png = await upload(s, token, "img.png", PNG);
    const refused = await s.api("GET", `/api/v1/files/${png.body.id}/content`, { token });
    expect(refused.status).toBe(400);
    const dir = await mkdir(s, token, "folder");
    expect((await s.api("GET", `/api/v1/files/${dir.id}/content`, { token })).status).toBe(400);
    expect((await s.api("GET", `/api/v1/files/${dir.id}/download`, { token })).status).toBe(400);
  });

  it("answers 413 on /content over 10 MB", async () => {
    const big = Buffer.alloc(10 * 1024 * 1024 + 1, 0x61);
    const r = await upload(s, token, "big.txt", big);
    expect(r.status).toBe(201);
    const c = await s.api("GET", `/api/v1/files/${r.body.id}/content`, { token });
    expect(c.status).toBe(413);
    expect(c.body.error.code).toBe("ERR_PAYLOAD_TOO_LARGE");
  });
});

function formWith(name: string, content: string): FormData {
  const f = new FormData();
  f.set("file", new Blob([content]), name);
  return f;
}
