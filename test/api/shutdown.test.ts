import http from "node:http";
import http2 from "node:http2";
import net from "node:net";
import { describe, expect, it } from "vitest";
import { startServer } from "../helpers/server.ts";

/**
 * Shutdown waits for in-flight requests only. Each case leaves a connection
 * open that carries none; shutdown_timeout and headers_timeout are a minute,
 * so a close() that waited for it would outlast the test's timeout.
 */
const slow = { server: { shutdown_timeout: 60, headers_timeout: 60 } };

describe("graceful shutdown", () => {
  it("does not wait for a connected socket that never sent a byte", async () => {
    const s = await startServer(slow);
    const sock = net.connect(s.port, "127.0.0.1");
    await new Promise((r) => sock.once("connect", r));
    const ended = new Promise((r) => sock.once("close", r));
    await s.close();
    await ended;
  });

  it("does not wait for an idle keep-alive HTTP/1.1 connection", async () => {
    const s = await startServer(slow);
    const agent = new http.Agent({ keepAlive: true });
    const status = await new Promise<number>((resolve, reject) => {
      http
        .get({ host: "127.0.0.1", port: s.port, path: "/health", agent }, (res) => {
          res.resume();
          res.on("end", () => resolve(res.statusCode ?? 0));
        })
        .on("error", reject);
    });
    expect(status).toBe(200);
    await s.close();
    agent.destroy();
  });

  it("does not wait for an idle HTTP/2 session", async () => {
    const s = await startServer(slow);
    const client = http2.connect(s.url);
    client.on("error", () => {});
    const status = await new Promise<number>((resolve, reject) => {
      const req = client.request({ ":path": "/health" });
      let st = 0;
      req.on("response", (h) => (st = Number(h[":status"])));
      req.resume();
      req.on("end", () => resolve(st));
      req.on("error", reject);
      req.end();
    });
    expect(status).toBe(200);
    await s.close();
    client.destroy();
  });
});
