import http2 from "node:http2";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer, type TestServer } from "../helpers/server.ts";

describe("request duration metric", () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startServer();
  });
  afterAll(() => s.close());

  it("keeps made-up HTTP/2 methods out of its labels", async () => {
    const client = http2.connect(s.url);
    client.on("error", () => {});
    try {
      for (const method of ["BREW1", "BREW2", "BREW3"]) {
        await new Promise<void>((resolve) => {
          const req = client.request({ ":method": method, ":path": "/api/v1/health" });
          req.on("error", () => resolve());
          req.resume();
          req.on("end", () => resolve());
          req.end();
        });
      }
    } finally {
      client.close();
    }
    const metrics = await s.api("GET", "/metrics");
    expect(metrics.text).not.toContain("BREW");
    expect(metrics.text).toMatch(/attic_http_request_duration_seconds_count\{[^}]*method="OTHER"/);
  });
});
