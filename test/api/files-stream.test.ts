import { randomBytes } from "node:crypto";
import { readdirSync } from "node:fs";
import { get } from "node:http";
import http2 from "node:http2";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { getBytes, upload } from "../helpers/files.ts";
import { startServer, type TestServer } from "../helpers/server.ts";

/** Bytes that sniff as video/mp4 (an ftyp box), then random payload. */
function fakeMp4(size: number): Buffer {
  const b = randomBytes(size);
  Buffer.concat([
    Buffer.from([0, 0, 0, 0x18]),
    Buffer.from("ftypisom"),
    Buffer.from([0, 0, 2, 0]),
    Buffer.from("isomiso2mp41"),
  ]).copy(b);
  return b;
}

describe("files: /stream with byte ranges", () => {
  let s: TestServer;
  let token: string;
  let id: string;
  let etag: string;
  let lastModified: string;
  const video = fakeMp4(100_000);
  const size = video.length;
  const path = () => `/api/v1/files/${id}/stream`;

  beforeAll(async () => {
    s = await startServer();
    token = await s.login();
    const r = await upload(s, token, "clip.mp4", video);
    expect(r.body.mime_type).toBe("video/mp4");
    id = r.body.id;
    const full = await getBytes(s, token, path());
    etag = full.headers.get("etag") ?? "";
    lastModified = full.headers.get("last-modified") ?? "";
  });
  afterAll(() => s.close());

  it("serves the whole file with Accept-Ranges and Content-Length", async () => {
    const r = await getBytes(s, token, path());
    expect(r.status).toBe(200);
    expect(r.headers.get("accept-ranges")).toBe("bytes");
    expect(r.headers.get("content-length")).toBe(String(size));
    expect(r.headers.get("content-type")).toBe("video/mp4");
    expect(r.bytes.equals(video)).toBe(true);
  });

  it("answers closed, open and suffix ranges with 206 and Content-Range", async () => {
    const cases: [string, number, number][] = [
      ["bytes=0-99", 0, 99],
      ["bytes=1000-", 1000, size - 1],
      ["bytes=-500", size - 500, size - 1],
      ["bytes=99990-200000", 99990, size - 1],
    ];
    for (const [range, start, end] of cases) {
      const r = await getBytes(s, token, path(), { range });
      expect(r.status, range).toBe(206);
      expect(r.headers.get("content-range")).toBe(`bytes ${start}-${end}/${size}`);
      expect(r.headers.get("content-length")).toBe(String(end - start + 1));
      expect(r.bytes.equals(video.subarray(start, end + 1)), range).toBe(true);
    }
  });

  it("answers 416 with bytes */size for unsatisfiable ranges", async () => {
    for (const range of [`bytes=${size}-`, "bytes=200000-300000", "bytes=-0"]) {
      const r = await getBytes(s, token, path(), { range });
      expect(r.status, range).toBe(416);
      expect(r.headers.get("content-range")).toBe(`bytes */${size}`);
      expect(JSON.parse(r.bytes.toString()).error.code).toBe("ERR_RANGE_NOT_SATISFIABLE");
    }
  });

  it("answers multi-range and malformed ranges with the whole file, never more", async () => {
    for (const range of ["bytes=0-10,20-30", "bytes=0-0,0-0,0-0,0-0", "bytes=abc", "lines=1-2"]) {
      const r = await getBytes(s, token, path(), { range });
      expect(r.status, range).toBe(200);
      expect(r.bytes.length).toBe(size);
    }
  });

  it("honours If-Range: matching validator → range, changed → whole file", async () => {
    expect((await getBytes(s, token, path(), { range: "bytes=0-9", "if-range": etag })).status).toBe(206);
    expect((await getBytes(s, token, path(), { range: "bytes=0-9", "if-range": lastModified })).status).toBe(
      206,
    );
    const stale = await getBytes(s, token, path(), { range: "bytes=0-9", "if-range": '"stale"' });
    expect(stale.status).toBe(200);
    expect(stale.bytes.length).toBe(size);
  });

  it("supports ranges on /download too, and 304 on /stream", async () => {
    const r = await getBytes(s, token, `/api/v1/files/${id}/download`, { range: "bytes=10-19" });
    expect(r.status).toBe(206);
    expect(r.bytes.equals(video.subarray(10, 20))).toBe(true);
    expect((await getBytes(s, token, path(), { "if-none-match": etag })).status).toBe(304);
  });

  it("answers HEAD with headers and no body", async () => {
    const res = await fetch(s.url + path(), {
      method: "HEAD",
      headers: { authorization: `Bearer ${token}` },
    });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-length")).toBe(String(size));
    expect((await res.arrayBuffer()).byteLength).toBe(0);
  });

  it("refuses non-media files with 400", async () => {
    const txt = await upload(s, token, "notes.txt", "not a video");
    const r = await s.api("GET", `/api/v1/files/${txt.body.id}/stream`, { token });
    expect(r.status).toBe(400);
    expect(r.body.error.code).toBe("ERR_VALIDATION");
  });

  it("serves many concurrent ranges byte-exact", async () => {
    const ranges = Array.from({ length: 40 }, (_, i) => [i * 2000, i * 2000 + 1999] as const);
    const answers = await Promise.all(
      ranges.map(([a, b]) => getBytes(s, token, path(), { range: `bytes=${a}-${b}` })),
    );
    answers.forEach((r, i) => {
      const [a, b] = ranges[i]!;
      expect(r.bytes.equals(video.subarray(a, b + 1))).toBe(true);
    });
    const m = await s.api("GET", "/metrics");
    expect(m.text).toMatch(/attic_file_downloads_total\{kind="stream"\} [1-9]/);
  });

  it("closes the file when clients leave mid-download, and keeps serving", async () => {
    const big = await upload(s, token, "big.mp4", fakeMp4(8 * 1024 * 1024));
    const fds = () => readdirSync("/proc/self/fd").length;
    const before = fds();
    for (let i = 0; i < 20; i++) {
      await new Promise<void>((done) => {
        const req = get(`${s.url}/api/v1/files/${big.body.id}/stream`, {
          headers: { authorization: `Bearer ${token}` },
        });
        req.on("response", (res) =>
          res.once("data", () => {
            req.destroy();
            done();
          }),
        );
        req.on("error", () => done());
      });
    }
    for (let i = 0; i < 200 && fds() > before + 2; i++) await new Promise((r) => setTimeout(r, 25));
    expect(fds()).toBeLessThanOrEqual(before + 2);
    const again = await getBytes(s, token, path(), { range: "bytes=0-99" });
    expect(again.bytes.equals(video.subarray(0, 100))).toBe(true);
  });

  it("serves ranges over cleartext HTTP/2 too, with the same headers", async () => {
    const client = http2.connect(s.url);
    try {
      const { headers, body } = await new Promise<{ headers: http2.IncomingHttpHeaders; body: Buffer }>(
        (resolve, reject) => {
          const req = client.request({
            ":path": path(),
            authorization: `Bearer ${token}`,
            range: "bytes=100-199",
          });
          const parts: Buffer[] = [];
          let headers: http2.IncomingHttpHeaders = {};
          req.on("response", (h) => {
            headers = h;
          });
          req.on("data", (d: Buffer) => parts.push(d));
          req.on("end", () => resolve({ headers, body: Buffer.concat(parts) }));
          req.on("error", reject);
          req.end();
        },
      );
      expect(headers[":status"]).toBe(206);
      expect(headers["content-range"]).toBe(`bytes 100-199/${size}`);
      expect(headers["x-content-type-options"]).toBe("nosniff");
      expect(body.equals(video.subarray(100, 200))).toBe(true);
    } finally {
      client.close();
    }
  });
});
