import { renameSync, writeFileSync } from "node:fs";
import { afterEach, describe, expect, it } from "vitest";
import { startServer, type TestServer } from "../helpers/server.ts";

const SECURITY_HEADERS = {
  "content-security-policy": "default-src 'self'; frame-ancestors 'none'",
  "x-frame-options": "DENY",
  "x-content-type-options": "nosniff",
  "strict-transport-security": "max-age=63072000; includeSubDomains; preload",
  "referrer-policy": "strict-origin-when-cross-origin",
};

const servers: TestServer[] = [];
const restores: (() => void)[] = [];
afterEach(async () => {
  for (const r of restores.splice(0)) r();
  for (const s of servers.splice(0)) await s.close().catch(() => {});
});

async function server(): Promise<TestServer> {
  const s = await startServer();
  servers.push(s);
  return s;
}

describe("errors and health when things break", () => {
  it("answers an unexpected failure 500 ERR_INTERNAL with a generic message and the security headers", async () => {
    const s = await server();
    s.server.ctx.db.$client.close();
    const r = await s.api("POST", "/api/v1/auth/login", {
      body: { username: "admin", password: "x-y-z-1234" },
    });
    expect(r.status).toBe(500);
    expect(r.body).toEqual({ error: { code: "ERR_INTERNAL", message: "internal server error" } });
    expect(r.text).not.toMatch(/database|connection|\.ts|at /i);
    for (const [k, v] of Object.entries(SECURITY_HEADERS)) expect(r.headers.get(k), k).toBe(v);
  });

  it("reports 503 unhealthy when the database cannot be queried", async () => {
    const s = await server();
    expect((await s.api("GET", "/health")).status).toBe(200);
    s.server.ctx.db.$client.close();
    for (const path of ["/health", "/api/v1/health"]) {
      const r = await s.api("GET", path);
      expect(r.status, path).toBe(503);
      expect(r.body).toMatchObject({ status: "unhealthy", version: expect.any(String) });
      expect(r.body.details.database.status).toBe("unhealthy");
      // The driver's own error text ("The database connection is not open") stays in the log.
      expect(r.body.details.database.message).toBe("the database does not answer");
      expect(r.text).not.toMatch(/connection|sqlite|not open/i);
      for (const [k, v] of Object.entries(SECURITY_HEADERS)) expect(r.headers.get(k), k).toBe(v);
    }
  });

  it("reports 503 unhealthy when the data dir is not writable", async () => {
    const s = await server();
    // chmod does not stop root: put a plain file where the directory was.
    const moved = `${s.dataDir}.moved`;
    renameSync(s.dataDir, moved);
    writeFileSync(s.dataDir, "not a directory");
    restores.push(() => {
      renameSync(s.dataDir, `${s.dataDir}.file`);
      renameSync(moved, s.dataDir);
    });
    const r = await s.api("GET", "/health");
    expect(r.status).toBe(503);
    expect(r.body.status).toBe("unhealthy");
    expect(r.body.details.storage.status).toBe("unhealthy");
  });

  it("answers wrong methods and unknown paths with the error body and headers", async () => {
    const s = await server();
    for (const [method, path] of [
      ["GET", "/api/v1/definitely-not-here"],
      ["DELETE", "/health"],
    ] as const) {
      const r = await s.api(method, path);
      expect(r.status, `${method} ${path}`).toBeGreaterThanOrEqual(400);
      expect(r.body.error.code).toMatch(/^ERR_/);
      for (const [k, v] of Object.entries(SECURITY_HEADERS)) expect(r.headers.get(k), k).toBe(v);
    }
  });

  it("answers a JSON route sent another content type 400 ERR_VALIDATION saying to send JSON; RPC 415", async () => {
    const s = await server();
    const admin = await s.login();
    const send = (path: string, type: string | undefined, body: string) =>
      fetch(s.url + path, {
        method: "POST",
        headers: { authorization: `Bearer ${admin}`, ...(type ? { "content-type": type } : {}) },
        body,
      });
    for (const [path, type, body] of [
      ["/api/v1/directories", "text/plain", '{"name":"typed"}'],
      ["/api/v1/directories", "application/x-www-form-urlencoded", "name=typed"],
      ["/api/v1/directories", undefined, '{"name":"typed"}'],
      ["/api/v1/auth/login", "text/plain", '{"username":"admin","password":"x"}'],
    ] as const) {
      const r = await send(path, type, body);
      const what = `${path} ${type}`;
      expect([what, r.status]).toEqual([what, 400]);
      expect(((await r.json()) as { error: unknown }).error).toEqual({
        code: "ERR_VALIDATION",
        message: "the body must be JSON, sent with Content-Type: application/json",
        details: { expected_content_type: "application/json" },
      });
    }
    // Connect's own rule for a codec it does not speak (its protocol says 415).
    const rpc = await send("/attic.v1.DirectoryService/CreateDirectory", "text/plain", '{"name":"typed"}');
    expect(rpc.status).toBe(415);
    const none = await s.api("GET", "/api/v1/files", { token: admin });
    expect(none.body.files.map((f: { name: string }) => f.name)).not.toContain("typed");
  });
});
