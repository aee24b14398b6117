import { readdirSync, rmSync, statfsSync } from "node:fs";
import { request } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ADMIN_PASSWORD, startServer, type TestServer } from "../helpers/server.ts";
import { folders, hostTree } from "./watched.helpers.ts";

/** Free bytes of the file system the test servers' data directories are made on. */
const freeBytes = () => {
  const s = statfsSync(tmpdir());
  return s.bavail * s.bsize;
};
const GiB = 1024 ** 3;
const MiB = 1024 ** 2;
const b64 = (s: string) => Buffer.from(s).toString("base64");

/** A raw request that sends its headers and no body yet: resolves with the status the server answers first. */
function headersOnly(s: TestServer, method: string, path: string, headers: Record<string, string>) {
  return new Promise<{ status: number; body: string }>((resolve, reject) => {
    const req = request(new URL(path, s.url), { method, headers });
    req.on("error", reject);
    req.on("response", (res) => {
      let body = "";
      res.setEncoding("utf8");
      res.on("data", (d: string) => {
        body += d;
      });
      res.on("end", () => {
        resolve({ status: res.statusCode ?? 0, body });
        req.destroy();
      });
    });
    req.flushHeaders();
  });
}

/** `total` bytes streamed with chunked encoding (no Content-Length), in 1 MiB chunks. */
function chunked(total: number): ReadableStream<Uint8Array> {
  let sent = 0;
  return new ReadableStream({
    pull(controller) {
      if (sent >= total) return controller.close();
      const n = Math.min(MiB, total - sent);
      controller.enqueue(new Uint8Array(n).fill(7));
      sent += n;
    },
  });
}

const tempFilesOf = (s: TestServer) => readdirSync(join(s.dataDir, "tmp"));

/**
 * One member's upload must not fill the disk the database lives on: uploads
 * leave storage.min_free_bytes free, refused up front when they declare
 * their size and stopped as they stream when they do not (507, nothing kept).
 */
describe("the storage reserve", () => {
  describe("with 2 GiB of room above it", () => {
    let s: TestServer;
    let admin: string;
    beforeAll(async () => {
      s = await startServer({ storage: { min_free_bytes: Math.max(0, freeBytes() - 2 * GiB) } });
      admin = await s.login();
    });
    afterAll(() => s.close());

    it("refuses an upload declared past it before reading the body, and takes one that fits", async () => {
      const big = await headersOnly(s, "POST", "/api/v1/files", {
        authorization: `Bearer ${admin}`,
        "content-type": "multipart/form-data; boundary=x",
        "content-length": String(3 * GiB),
      });
      expect(big.status).toBe(507);
      expect(JSON.parse(big.body).error.code).toBe("ERR_INSUFFICIENT_STORAGE");
      expect(JSON.parse(big.body).error.message).toContain("storage.min_free_bytes");

      const form = new FormData();
      form.append("file", new Blob([new Uint8Array(1000).fill(1)]), "fits.bin");
      const small = await fetch(`${s.url}/api/v1/files`, {
        method: "POST",
        headers: { authorization: `Bearer ${admin}` },
        body: form,
      });
      expect(small.status).toBe(201);
      expect(tempFilesOf(s)).toEqual([]);
    });

    it("refuses a WebDAV PUT declared past it (Content-Length, or Finder's X-Expected-Entity-Length) before reading it", async () => {
      const basic = `Basic ${Buffer.from(`admin:${ADMIN_PASSWORD}`).toString("base64")}`;
      const lengths: Record<string, string>[] = [
        { "content-length": String(3 * GiB) },
        { "x-expected-entity-length": String(3 * GiB), "transfer-encoding": "chunked" },
      ];
      for (const length of lengths) {
        const put = await headersOnly(s, "PUT", "/dav/film.mkv", { authorization: basic, ...length });
        expect(put.status).toBe(507);
      }
      const listing = await s.api("GET", "/api/v1/files", { token: admin });
      expect(listing.body.files.map((f: { name: string }) => f.name)).not.toContain("film.mkv");
    });

    it("refuses a resumable upload whose length would cross it at creation, or a PATCH declaring so", async () => {
      const tus = { authorization: `Bearer ${admin}`, "tus-resumable": "1.0.0" };
      const meta = `filename ${b64("film.mkv")}`;
      const tooBig = await fetch(`${s.url}/api/v1/uploads`, {
        method: "POST",
        headers: { ...tus, "upload-length": String(3 * GiB), "upload-metadata": meta },
      });
      expect(tooBig.status).toBe(507);
      expect(((await tooBig.json()) as { error: { code: string } }).error.code).toBe(
        "ERR_INSUFFICIENT_STORAGE",
      );

      const deferred = await fetch(`${s.url}/api/v1/uploads`, {
        method: "POST",
        headers: { ...tus, "upload-defer-length": "1", "upload-metadata": meta },
      });
      expect(deferred.status).toBe(201);
      const location = new URL(deferred.headers.get("location") ?? "", s.url).pathname;
      const patch = await headersOnly(s, "PATCH", location, {
        ...tus,
        "upload-offset": "0",
        "content-type": "application/offset+octet-stream",
        "content-length": String(3 * GiB),
      });
      expect(patch.status).toBe(507);
      expect(JSON.parse(patch.body).error.code).toBe("ERR_INSUFFICIENT_STORAGE");
    });
  });

  describe("with the free space already below it", () => {
    let s: TestServer;
    let admin: string;
    beforeAll(async () => {
      s = await startServer({ storage: { min_free_bytes: freeBytes() + 1024 * GiB } });
      admin = await s.login();
    });
    afterAll(() => s.close());

    it("says so in /health, as degraded: reads and the database go on", async () => {
      const health = await s.api("GET", "/health");
      expect(health.status).toBe(200);
      expect(health.body.details.storage.status).toBe("degraded");
      expect(health.body.details.storage.message).toContain("uploads are refused");
    });

    it("stops an upload of unknown length as it streams, keeping nothing", async () => {
      const res = await fetch(`${s.url}/api/v1/files?name=stream.bin`, {
        method: "POST",
        headers: {
          authorization: `Bearer ${admin}`,
          "content-type": "multipart/form-data; boundary=b",
        },
        body: multipartStream("b", "stream.bin", 24 * MiB),
        duplex: "half",
      } as RequestInit);
      expect(res.status).toBe(507);
      expect(((await res.json()) as { error: { code: string } }).error.code).toBe("ERR_INSUFFICIENT_STORAGE");
      const listing = await s.api("GET", "/api/v1/files", { token: admin });
      expect(listing.body.files.map((f: { name: string }) => f.name)).not.toContain("stream.bin");
      expect(tempFilesOf(s)).toEqual([]);
    });

    it("stops a resumable upload's PATCH of unknown length with 507, not 500; HEAD tells how far it got", async () => {
      const tus = { authorization: `Bearer ${admin}`, "tus-resumable": "1.0.0" };
      const created = await fetch(`${s.url}/api/v1/uploads`, {
        method: "POST",
        headers: { ...tus, "upload-defer-length": "1", "upload-metadata": `filename ${b64("late.bin")}` },
      });
      expect(created.status).toBe(201);
      const location = new URL(created.headers.get("location") ?? "", s.url).toString();
      const patch = await fetch(location, {
        method: "PATCH",
        headers: { ...tus, "upload-offset": "0", "content-type": "application/offset+octet-stream" },
        body: chunked(24 * MiB),
        duplex: "half",
      } as RequestInit);
      expect(patch.status).toBe(507);
      expect(((await patch.json()) as { error: { code: string } }).error.code).toBe(
        "ERR_INSUFFICIENT_STORAGE",
      );
      const head = await fetch(location, { method: "HEAD", headers: tus });
      expect(head.status).toBe(200);
      expect(Number(head.headers.get("upload-offset"))).toBeLessThan(24 * MiB);
    });

    it("refuses to copy a watched folder's files into stored content (507), keeping nothing", async () => {
      const host = hostTree({ "a.txt": "alpha from the host", "Sub/b.txt": "bee" });
      try {
        const f = folders(s, admin);
        const created = await f.create({ name: "Host", path: host });
        expect(created.status, created.text).toBe(201);
        await f.settled(created.body.id);
        const mountId = created.body.directory_id as string;
        const blobsBefore = await s.api("GET", "/api/v1/files", { token: admin });
        for (const body of [
          { destination_parent_id: null, new_name: "Snapshot" },
          { destination_parent_id: null, new_name: "Snapshot 2" },
        ]) {
          const cp = await s.api("POST", `/api/v1/files/${mountId}/copy`, { token: admin, body });
          expect(cp.status, cp.text).toBe(507);
          expect(cp.body.error.code).toBe("ERR_INSUFFICIENT_STORAGE");
        }
        const listing = await s.api("GET", "/api/v1/files", { token: admin });
        expect(listing.body.total).toBe(blobsBefore.body.total);
        expect(readdirSync(join(s.dataDir, "blobs"))).toEqual([]);
        expect(tempFilesOf(s)).toEqual([]);
      } finally {
        rmSync(host, { recursive: true, force: true });
      }
    });
  });
});

/** A multipart body with one `file` part of `size` bytes, streamed without a length. */
function multipartStream(boundary: string, name: string, size: number): ReadableStream<Uint8Array> {
  const enc = new TextEncoder();
  const head = enc.encode(
    `--${boundary}\r\ncontent-disposition: form-data; name="file"; filename="${name}"\r\n` +
      "content-type: application/octet-stream\r\n\r\n",
  );
  const tail = enc.encode(`\r\n--${boundary}--\r\n`);
  const body = chunked(size).getReader();
  let state: "head" | "body" | "done" = "head";
  return new ReadableStream({
    async pull(controller) {
      if (state === "head") {
        state = "body";
        return controller.enqueue(head);
      }
      if (state === "body") {
        const { done, value } = await body.read();
        if (!done) return controller.enqueue(value);
        state = "done";
        controller.enqueue(tail);
        return;
      }
      controller.close();
    },
  });
}
