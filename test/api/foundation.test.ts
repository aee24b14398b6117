import http2 from "node:http2";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { expectHealthy } from "../helpers/programs.ts";
import { startServer, type TestServer } from "../helpers/server.ts";

const SECURITY_HEADERS = {
  "content-security-policy": "default-src 'self'; frame-ancestors 'none'",
  "x-frame-options": "DENY",
  "x-content-type-options": "nosniff",
  "strict-transport-security": "max-age=63072000; includeSubDomains; preload",
  "referrer-policy": "strict-origin-when-cross-origin",
};

describe("foundation", () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startServer({ server: { cors_origins: ["https://ui.example"] } });
  });
  afterAll(() => s.close());

  it("answers /health and /api/v1/health with status and version", async () => {
    for (const path of ["/health", "/api/v1/health"]) {
      const r = await s.api("GET", path);
      expect(r.status).toBe(200);
      expect(r.body).toMatchObject({ version: expect.stringMatching(/^\d+\.\d+\.\d+/) });
      expectHealthy(r.body);
    }
  });

  it("sets the security headers on success, 404 and error responses", async () => {
    const responses = [
      await s.api("GET", "/health"),
      await s.api("GET", "/api/v1/no-such-thing"),
      await s.api("POST", "/api/v1/auth/login", { body: { username: "x" } }),
    ];
    expect(responses.map((r) => r.status)).toEqual([200, 404, 400]);
    for (const r of responses) {
      for (const [k, v] of Object.entries(SECURITY_HEADERS)) expect(r.headers.get(k), k).toBe(v);
    }
  });

  it("answers unknown routes with the error body", async () => {
    const r = await s.api("GET", "/api/v1/nope");
    expect(r.body).toEqual({ error: { code: "ERR_NOT_FOUND", message: expect.any(String) } });
  });

  it("rejects malformed, oversized and deeply nested JSON with 4xx, never 500", async () => {
    const bad = await s.api("POST", "/api/v1/auth/login", {
      body: "{nope",
      headers: { "content-type": "application/json" },
    });
    expect(bad.status).toBe(400);
    expect(bad.body.error.code).toBe("ERR_VALIDATION");
    const deep = await s.api("POST", "/api/v1/auth/login", {
      body: "[".repeat(5000) + "]".repeat(5000),
      headers: { "content-type": "application/json" },
    });
    expect(deep.status).toBe(400);
    const big = await s.api("POST", "/api/v1/auth/login", {
      body: JSON.stringify({ username: "a".repeat(2 * 1024 * 1024), password: "x" }),
      headers: { "content-type": "application/json" },
    });
    expect(big.status).toBe(413);
    expect(big.body.error.code).toBe("ERR_PAYLOAD_TOO_LARGE");
  });

  it("allows CORS only for configured origins", async () => {
    const ok = await s.api("GET", "/health", { headers: { origin: "https://ui.example" } });
    expect(ok.headers.get("access-control-allow-origin")).toBe("https://ui.example");
    const foreign = await s.api("GET", "/health", { headers: { origin: "https://evil.example" } });
    expect(foreign.headers.get("access-control-allow-origin")).toBeNull();
  });

  it("exposes every attic_ metric of the interface", async () => {
    await s.login();
    const r = await s.api("GET", "/metrics");
    expect(r.status).toBe(200);
    for (const name of [
      "attic_file_uploads_total",
      "attic_file_downloads_total",
      "attic_file_deletions_total",
      "attic_auth_attempts_total",
      "attic_api_key_usage_total",
      "attic_db_query_duration_seconds",
      "attic_search_queries_total",
      "attic_active_users",
      "attic_http_request_duration_seconds",
      "attic_process_resident_memory_bytes",
    ]) {
      expect(r.text, name).toContain(name);
    }
    expect(r.text).toMatch(/attic_db_query_duration_seconds_count\{operation="select"\} [1-9]/);
    expect(r.text).toMatch(/attic_auth_attempts_total\{method="password",status="success"\} 1/);
  });

  it("serves HTTP/2 with prior knowledge on the same port", async () => {
    const client = http2.connect(s.url);
    try {
      const { status, body } = await new Promise<{ status: number; body: string }>((resolve, reject) => {
        const req = client.request({ ":path": "/api/v1/health" });
        let body = "";
        let status = 0;
        req.on("response", (h) => {
          status = Number(h[":status"]);
        });
        req.setEncoding("utf8");
        req.on("data", (d) => {
          body += d;
        });
        req.on("end", () => resolve({ status, body }));
        req.on("error", reject);
        req.end();
      });
      expect(status).toBe(200);
      expectHealthy(JSON.parse(body));
    } finally {
      client.close();
    }
  });

  it("publishes an OpenAPI 3.0 document with both security schemes", async () => {
    const r = await s.api("GET", "/swagger/doc.json");
    expect(r.status).toBe(200);
    expect(r.body.openapi).toMatch(/^3\.0/);
    expect(Object.keys(r.body.components.securitySchemes).sort()).toEqual(["ApiKeyAuth", "BearerAuth"]);
    expect(r.body.paths["/api/v1/auth/login"]).toBeDefined();
  });
});
