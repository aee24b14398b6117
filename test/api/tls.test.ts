import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import http2 from "node:http2";
import https from "node:https";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { TLSSocket } from "node:tls";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { expectHealthy } from "../helpers/programs.ts";
import { startServer, type TestServer } from "../helpers/server.ts";

const dir = mkdtempSync(join(tmpdir(), "attic-tls-"));
const cert = join(dir, "cert.pem");
const key = join(dir, "key.pem");

function makeCert(): void {
  execFileSync(
    "openssl",
    [
      "req",
      "-x509",
      "-newkey",
      "rsa:2048",
      "-nodes",
      "-days",
      "1",
      "-keyout",
      key,
      "-out",
      cert,
      "-subj",
      "/CN=localhost",
      "-addext",
      "subjectAltName=IP:127.0.0.1,DNS:localhost",
    ],
    { stdio: "ignore" },
  );
}

/** GET over HTTPS/1.1 with a keep-alive agent; resolves status, ALPN protocol and body. */
function getH1(port: number, path: string, agent: https.Agent) {
  return new Promise<{ status: number; alpn: string | false | null; body: string }>((resolve, reject) => {
    const req = https.get({ host: "127.0.0.1", port, path, agent, ca: readFileSync(cert) }, (res) => {
      const alpn = (res.socket as TLSSocket).alpnProtocol;
      let body = "";
      res.on("data", (d) => (body += d));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, alpn, body }));
    });
    req.on("error", reject);
  });
}

describe("TLS with ALPN", () => {
  let s: TestServer;
  let port: number;
  beforeAll(async () => {
    makeCert();
    s = await startServer({ server: { tls_cert: cert, tls_key: key, shutdown_timeout: 60 } });
    port = s.port;
  });
  afterAll(async () => {
    rmSync(dir, { recursive: true, force: true });
  });

  it("serves HTTP/1.1 over TLS to clients that offer only http/1.1", async () => {
    const agent = new https.Agent({ keepAlive: true, ALPNProtocols: ["http/1.1"] });
    try {
      const r = await getH1(port, "/health", agent);
      expect(r.status).toBe(200);
      expect(r.alpn).toBe("http/1.1");
      expectHealthy(JSON.parse(r.body));
    } finally {
      agent.destroy();
    }
  });

  it("negotiates h2 by ALPN", async () => {
    const client = http2.connect(`https://127.0.0.1:${port}`, { ca: readFileSync(cert) });
    try {
      const { status, body, alpn } = await new Promise<{ status: number; body: string; alpn?: string }>(
        (resolve, reject) => {
          const req = client.request({ ":path": "/api/v1/health" });
          let body = "";
          let status = 0;
          req.on("response", (h) => (status = Number(h[":status"])));
          req.setEncoding("utf8");
          req.on("data", (d) => (body += d));
          req.on("end", () => resolve({ status, body, alpn: client.alpnProtocol }));
          req.on("error", reject);
          req.end();
        },
      );
      expect(alpn).toBe("h2");
      expect(status).toBe(200);
      expectHealthy(JSON.parse(body));
    } finally {
      client.close();
    }
  });

  it("shuts down promptly with an idle keep-alive HTTP/1.1 TLS connection open", async () => {
    const agent = new https.Agent({ keepAlive: true, ALPNProtocols: ["http/1.1"] });
    expect((await getH1(port, "/health", agent)).status).toBe(200);
    // shutdown_timeout is 60 s: close must not wait for this idle socket.
    await s.close();
    agent.destroy();
  });
});
