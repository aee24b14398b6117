import { mkdtempSync, rmSync } from "node:fs";
import net from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ChildServer, loginAdmin, report, spawnServer } from "./helpers/child-server.ts";
import { type Client, client, expectUploadWorks } from "./helpers/files-client.ts";
import { gzipOfZeros, nestedStructValue, settingsWithValue } from "./helpers/payloads.ts";

const HEADERS_TIMEOUT_S = 3;

/** Sends raw bytes on a fresh socket; resolves with what the server answered before closing (bounded). */
function raw(port: number, data: string | Buffer, timeoutMs = 10_000): Promise<string> {
  return new Promise((resolve, reject) => {
    const s = net.connect(port, "127.0.0.1");
    let got = "";
    const timer = setTimeout(() => {
      s.destroy();
      reject(new Error(`no close within ${timeoutMs} ms; got ${JSON.stringify(got.slice(0, 200))}`));
    }, timeoutMs);
    s.on("data", (d) => {
      got += d.toString("latin1");
      if (/\r\n\r\n/.test(got) && !/connection: keep-alive/i.test(got)) s.end();
    });
    s.on("error", () => undefined);
    s.on("close", () => {
      clearTimeout(timer);
      resolve(got);
    });
    s.write(data);
  });
}

/** A health check that must answer 200 within 5 s: the server is still serving everyone else. */
async function healthy(url: string): Promise<void> {
  const res = await fetch(`${url}/health`, { signal: AbortSignal.timeout(5_000) });
  await res.arrayBuffer();
  expect(res.status).toBe(200);
}

describe("hostile clients", () => {
  let s: ChildServer;
  let c: Client;
  const dataDir = mkdtempSync(join(tmpdir(), "attic-hostile-"));
  beforeAll(async () => {
    s = await spawnServer(dataDir, { ATTIC_SERVER_HEADERS_TIMEOUT: String(HEADERS_TIMEOUT_S) });
    c = client(s.url, await loginAdmin(s.url));
  });
  afterAll(async () => {
    await s?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it("keeps serving while slowloris sockets dribble headers, then drops them", async () => {
    const port = Number(new URL(s.url).port);
    const sockets: net.Socket[] = [];
    const closedByServer: Promise<void>[] = [];
    for (let i = 0; i < 100; i++) {
      const sock = net.connect(port, "127.0.0.1");
      sock.on("error", () => undefined);
      closedByServer.push(new Promise((r) => sock.once("close", () => r())));
      sock.write("GET /health HTTP/1.1\r\nHost: x\r\n");
      sockets.push(sock);
    }
    // One header byte per second per socket, as a slowloris does; stops when the socket is gone.
    const drip = setInterval(() => {
      for (const sock of sockets) if (!sock.destroyed) sock.write("X");
    }, 1000);
    try {
      for (let i = 0; i < 10; i++) await healthy(s.url);
      // Node checks header timeouts on a timer: allow the interval on top of headers_timeout.
      const all = Promise.all(closedByServer).then(() => "closed");
      const bound = new Promise((r) => setTimeout(() => r("still open"), 30_000));
      expect(await Promise.race([all, bound])).toBe("closed");
      await healthy(s.url);
    } finally {
      clearInterval(drip);
      for (const sock of sockets) sock.destroy();
    }
  });

  it("answers 431 to headers over 16 KiB and keeps serving", async () => {
    const big = `GET /health HTTP/1.1\r\nHost: x\r\nX-Big: ${"a".repeat(20 * 1024)}\r\n\r\n`;
    expect(await raw(Number(new URL(s.url).port), big)).toMatch(/^HTTP\/1\.1 431/);
    const many = Array.from({ length: 2000 }, (_, i) => `X-H${i}: v\r\n`).join("");
    expect(await raw(Number(new URL(s.url).port), `GET /health HTTP/1.1\r\nHost: x\r\n${many}\r\n`)).toMatch(
      /^HTTP\/1\.1 431/,
    );
    await healthy(s.url);
  });

  it("refuses deeply nested JSON bodies with 400 over REST", async () => {
    const deep = "[".repeat(100_000) + "]".repeat(100_000);
    for (const path of ["/api/v1/auth/login", "/api/v1/directories", "/api/v1/settings/user"]) {
      const res = await fetch(s.url + path, {
        method: path.endsWith("login") ? "POST" : path.endsWith("user") ? "PUT" : "POST",
        headers: { authorization: `Bearer ${c.token}`, "content-type": "application/json" },
        body: deep,
        signal: AbortSignal.timeout(10_000),
      });
      await res.arrayBuffer();
      expect([400, 404, 405, 413], path).toContain(res.status);
    }
    await healthy(s.url);
  });

  it("answers a 1000-range Range header on /stream safely, never more bytes than the file", async () => {
    await expectUploadWorks(c);
    const size = 256 * 1024;
    const data = new Uint8Array(size).map((_, i) => (i * 31) % 251);
    const up = await c.upload("clip.mp4", data);
    expect(up.status).toBe(201);
    const id = (up.body as { id: string }).id;
    const ranges = Array.from({ length: 1000 }, (_, i) => `${i * 100}-${i * 100 + size}`).join(",");
    for (const kind of ["stream", "download"]) {
      const res = await fetch(`${s.url}/api/v1/files/${id}/${kind}`, {
        headers: { authorization: `Bearer ${c.token}`, range: `bytes=${ranges}` },
        signal: AbortSignal.timeout(10_000),
      });
      const body = await res.arrayBuffer();
      expect([200, 206, 400, 416], kind).toContain(res.status);
      expect(body.byteLength, kind).toBeLessThanOrEqual(size);
    }
    await healthy(s.url);
  });

  it("refuses an RPC message that inflates to gigabytes and stays responsive", async () => {
    const bomb = await gzipOfZeros(2 * 1024 * 1024 * 1024);
    const before = s.peakRssMiB();
    const res = await fetch(`${s.url}/attic.v1.SettingsService/UpdateUserSettings`, {
      method: "POST",
      headers: {
        authorization: `Bearer ${c.token}`,
        "content-type": "application/json",
        "content-encoding": "gzip",
        "connect-protocol-version": "1",
      },
      body: new Uint8Array(bomb),
      signal: AbortSignal.timeout(30_000),
    });
    const text = await res.text();
    report(
      `gzip bomb ${bomb.length} bytes -> ${res.status} ${text.slice(0, 120)}; peak RSS ${before} -> ${s.peakRssMiB()} MiB`,
    );
    expect(res.status).toBeGreaterThanOrEqual(400);
    expect(res.status).toBeLessThan(500);
    expect(s.peakRssMiB() - before).toBeLessThan(256);
    await healthy(s.url);
  });

  /** POSTs a body to UpdateUserSettings; resolves with the HTTP status after logging the answer. */
  async function updateSettings(type: string, body: Uint8Array<ArrayBuffer> | string): Promise<number> {
    const res = await fetch(`${s.url}/attic.v1.SettingsService/UpdateUserSettings`, {
      method: "POST",
      headers: { authorization: `Bearer ${c.token}`, "connect-protocol-version": "1", "content-type": type },
      body,
      signal: AbortSignal.timeout(30_000),
    });
    const text = await res.text();
    report(`nested ${type} (${body.length} bytes) -> ${res.status} ${text.slice(0, 120)}`);
    return res.status;
  }

  it("refuses a deeply nested JSON Struct over RPC with a 4xx", async () => {
    const deep = `{"settings":{"a":${"[".repeat(50_000)}${"]".repeat(50_000)}}}`;
    expect(await updateSettings("application/json", deep)).toBe(400);
    await healthy(s.url);
  });

  // connect-es maps a binary decode failure (here the protobuf recursion limit) to
  // Code.Internal; src/rpc/decode-errors.ts answers it invalid_argument, like JSON.
  it("refuses a deeply nested binary protobuf Struct over RPC with a 4xx", async () => {
    const status = await updateSettings(
      "application/proto",
      new Uint8Array(settingsWithValue(nestedStructValue(50_000))),
    );
    await healthy(s.url);
    expect(status).toBeLessThan(500);
  });
});
