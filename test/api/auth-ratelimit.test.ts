import { afterEach, describe, expect, it } from "vitest";
import { GOOD_PASSWORD } from "../helpers/accounts.ts";
import { startServer, type TestServer } from "../helpers/server.ts";

/**
 * Limit windows are whole wall-clock minutes: start a sequence early in one
 * so its requests cannot straddle two windows.
 */
async function awayFromWindowEdge(): Promise<void> {
  const intoMinute = Date.now() % 60_000;
  if (intoMinute > 50_000) await new Promise((r) => setTimeout(r, 60_000 - intoMinute + 50));
}

describe("auth: rate limits", () => {
  let s: TestServer | undefined;
  afterEach(async () => {
    await s?.close();
    s = undefined;
  });

  const badLogin = (srv: TestServer, headers: Record<string, string> = {}) =>
    srv.api("POST", "/api/v1/auth/login", { body: { username: "admin", password: "wrong" }, headers });

  it("answers 429 RATE_LIMIT_EXCEEDED with X-RateLimit-* headers past login_per_minute", async () => {
    s = await startServer({ rate_limit: { login_per_minute: 3 } });
    await awayFromWindowEdge();
    const statuses = [];
    for (let i = 0; i < 3; i++) {
      const r = await badLogin(s);
      statuses.push(r.status);
      expect(r.headers.get("x-ratelimit-limit")).toBe("3");
      expect(r.headers.get("x-ratelimit-remaining")).toBe(String(2 - i));
    }
    expect(statuses).toEqual([401, 401, 401]);
    const limited = await badLogin(s);
    expect(limited.status).toBe(429);
    expect(limited.body.error.code).toBe("RATE_LIMIT_EXCEEDED");
    expect(limited.body.error.message).toMatch(/60 seconds/);
    expect(limited.headers.get("x-ratelimit-remaining")).toBe("0");
    expect(Number(limited.headers.get("x-ratelimit-reset"))).toBeGreaterThan(Date.now() / 1000 - 1);
  });

  it("counts register and login together", async () => {
    s = await startServer({ rate_limit: { login_per_minute: 3 }, auth: { registration_enabled: true } });
    await awayFromWindowEdge();
    const reg = (u: string) =>
      s!.api("POST", "/api/v1/auth/register", {
        body: { username: u, email: `${u}@example.com`, password: GOOD_PASSWORD },
      });
    expect((await reg("ratey1")).status).toBe(201);
    expect((await reg("ratey2")).status).toBe(201);
    expect((await badLogin(s)).status).toBe(401);
    expect((await badLogin(s)).status).toBe(429);
    expect((await reg("ratey3")).status).toBe(429);
  });

  it("ignores X-Forwarded-For by default: spoofing it does not escape the limit", async () => {
    s = await startServer({ rate_limit: { login_per_minute: 3 } });
    await awayFromWindowEdge();
    const results = [];
    for (let i = 0; i < 4; i++)
      results.push((await badLogin(s, { "x-forwarded-for": `203.0.113.${i}` })).status);
    expect(results).toEqual([401, 401, 401, 429]);
  });

  it("honours X-Forwarded-For when server.trust_proxy is on", async () => {
    s = await startServer({ rate_limit: { login_per_minute: 3 }, server: { trust_proxy: true } });
    await awayFromWindowEdge();
    const one = { "x-forwarded-for": "203.0.113.7" };
    for (let i = 0; i < 3; i++) expect((await badLogin(s, one)).status).toBe(401);
    expect((await badLogin(s, one)).status).toBe(429);
    expect((await badLogin(s, { "x-forwarded-for": "203.0.113.8, 10.0.0.1" })).status).toBe(401);
  });

  it("limits the other auth endpoints per address with auth_per_minute", async () => {
    s = await startServer({ rate_limit: { auth_per_minute: 2 } });
    await awayFromWindowEdge();
    const refresh = () => s!.api("POST", "/api/v1/auth/refresh", { body: { refresh_token: "x.y.z" } });
    expect((await refresh()).status).toBe(401);
    expect((await refresh()).status).toBe(401);
    const limited = await refresh();
    expect(limited.status).toBe(429);
    expect(limited.body.error.code).toBe("RATE_LIMIT_EXCEEDED");
  });
});
