import { randomBytes } from "node:crypto";
import { request } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer, type TestServer } from "../helpers/server.ts";

const b64 = (s: string) => Buffer.from(s).toString("base64");
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** storage.resumable_upload_expiry_hours = 0.001: 3.6 s. */
const EXPIRY_MS = 3600;

/**
 * An unfinished tus upload expires a whole period after its last bytes, not
 * after its creation: a large upload over a slow line outlasts the period
 * while bytes keep arriving.
 */
describe("tus uploads: expiry slides with activity", () => {
  let s: TestServer;
  let admin: string;

  beforeAll(async () => {
    s = await startServer({ storage: { resumable_upload_expiry_hours: EXPIRY_MS / 3600_000 } });
    admin = await s.login();
  });
  afterAll(() => s.close());

  const tus = (method: string, path: string, headers: Record<string, string> = {}, body?: Uint8Array) =>
    fetch(s.url + path, {
      method,
      headers: { authorization: `Bearer ${admin}`, "tus-resumable": "1.0.0", ...headers },
      ...(body ? { body: body as unknown as RequestInit["body"] } : {}),
    });
  const create = async (name: string, length: number) => {
    const r = await tus("POST", "/api/v1/uploads", {
      "upload-length": String(length),
      "upload-metadata": `filename ${b64(name)}`,
    });
    expect(r.status).toBe(201);
    return new URL(r.headers.get("location")!, s.url).pathname;
  };
  const patch = (path: string, offset: number, bytes: Uint8Array) =>
    tus(
      "PATCH",
      path,
      { "upload-offset": String(offset), "content-type": "application/offset+octet-stream" },
      bytes,
    );
  const inTree = async (name: string) =>
    (await s.api("GET", "/api/v1/files?limit=1000", { token: admin })).body.files.some(
      (f: { name: string }) => f.name === name,
    );

  it("PATCHes spread over more than the period all land; each one moves Upload-Expires on", async () => {
    const chunks = Array.from({ length: 6 }, () => randomBytes(1000));
    const path = await create("slow-many.bin", 6000);
    const started = Date.now();
    for (const [i, chunk] of chunks.entries()) {
      if (i > 0) await sleep(1000);
      const r = await patch(path, i * 1000, chunk);
      expect([i, r.status]).toEqual([i, 204]);
      if (i < chunks.length - 1) {
        const expires = Date.parse(r.headers.get("upload-expires")!);
        // Counted from these bytes (HTTP dates drop the milliseconds).
        expect(expires).toBeGreaterThan(Date.now() + EXPIRY_MS - 2000);
      }
    }
    expect(Date.now() - started).toBeGreaterThan(EXPIRY_MS + 1000);
    expect(await inTree("slow-many.bin")).toBe(true);
  }, 30_000);

  it("one PATCH streaming for longer than the period is not swept away mid-way", async () => {
    const total = 8;
    const data = randomBytes(total * 1024);
    const path = await create("slow-one.bin", data.length);
    const answer = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = request(new URL(path, s.url), {
        method: "PATCH",
        headers: {
          authorization: `Bearer ${admin}`,
          "tus-resumable": "1.0.0",
          "upload-offset": "0",
          "content-type": "application/offset+octet-stream",
          "content-length": String(data.length),
        },
      });
      req.on("error", reject);
      req.on("response", (res) => {
        let body = "";
        res.setEncoding("utf8").on("data", (c: string) => {
          body += c;
        });
        res.on("end", () => resolve({ status: res.statusCode!, body }));
      });
      // A KiB a second: the sweep (every 3.6 s here) runs at least once past creation + the period.
      let sent = 0;
      const tick = () => {
        req.write(data.subarray(sent * 1024, (sent + 1) * 1024));
        if (++sent === total) req.end();
        else setTimeout(tick, 1000);
      };
      tick();
    });
    expect(answer).toEqual({ status: 204, body: "" });
    expect(await inTree("slow-one.bin")).toBe(true);
  }, 30_000);

  it("an upload idle for the whole period is gone", async () => {
    const path = await create("idle.bin", 2000);
    expect((await patch(path, 0, randomBytes(1000))).status).toBe(204);
    await sleep(EXPIRY_MS + 1500);
    const late = await patch(path, 1000, randomBytes(1000));
    // 410 until the sweep removes it, 404 after.
    expect([404, 410]).toContain(late.status);
    expect(await inTree("idle.bin")).toBe(false);
  }, 30_000);
});
