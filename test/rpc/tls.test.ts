import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Code, ConnectError, createClient } from "@connectrpc/connect";
import { createConnectTransport, createGrpcTransport } from "@connectrpc/connect-node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SettingsService } from "../../src/gen/attic/v1/settings_pb.ts";
import { ADMIN_PASSWORD, startServer, type TestServer } from "../helpers/server.ts";

/** The test makes its certificate with the openssl CLI; without it there is nothing to serve TLS with. */
const hasOpenssl = (() => {
  try {
    execFileSync("openssl", ["version"]);
    return true;
  } catch {
    return false;
  }
})();

describe.skipIf(!hasOpenssl)("RPC over TLS with ALPN", () => {
  let s: TestServer;
  let dir: string;
  let base: string;
  let ca: Buffer;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "attic-tls-"));
    const [cert, key] = [join(dir, "cert.pem"), join(dir, "key.pem")];
    execFileSync("openssl", [
      ...["req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"],
      ...["-keyout", key, "-out", cert, "-days", "1", "-subj", "/CN=localhost"],
      ...["-addext", "subjectAltName=IP:127.0.0.1,DNS:localhost"],
    ]);
    ca = readFileSync(cert);
    s = await startServer({ server: { tls_cert: cert, tls_key: key } });
    base = `https://127.0.0.1:${s.port}`;
  });
  afterAll(async () => {
    await s.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("serves gRPC (h2 by ALPN) and Connect over HTTP/1.1 on the TLS port", async () => {
    const auth = (t: string) => ({ headers: { authorization: `Bearer ${t}` } });
    const grpc = createClient(SettingsService, createGrpcTransport({ baseUrl: base, nodeOptions: { ca } }));
    const unauth = await grpc.getUserSettings({}).catch((e) => ConnectError.from(e));
    expect((unauth as ConnectError).code).toBe(Code.Unauthenticated);
    const token = await tokenOver(base, ca);
    expect((await grpc.getUserSettings({}, auth(token))).settings).toEqual({});
    const h1 = createClient(
      SettingsService,
      createConnectTransport({ baseUrl: base, httpVersion: "1.1", nodeOptions: { ca } }),
    );
    expect((await h1.updateUserSettings({ settings: { tls: true } }, auth(token))).settings).toEqual({
      tls: true,
    });
  });
});

/** Logs in over HTTPS with the test CA (fetch has no per-call CA option, so node:https). */
async function tokenOver(base: string, ca: Buffer): Promise<string> {
  const https = await import("node:https");
  const body = JSON.stringify({ username: "admin", password: ADMIN_PASSWORD });
  return new Promise((ok, fail) => {
    const req = https.request(
      `${base}/api/v1/auth/login`,
      { method: "POST", ca, headers: { "content-type": "application/json" } },
      (res) => {
        let text = "";
        res.on("data", (d) => (text += d));
        res.on("end", () => ok(JSON.parse(text).access_token));
      },
    );
    req.on("error", fail);
    req.end(body);
  });
}
