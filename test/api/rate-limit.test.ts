import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { upload } from "../helpers/files.ts";
import { ADMIN_PASSWORD, startServer, type TestServer } from "../helpers/server.ts";

const SECURITY_HEADERS = ["content-security-policy", "x-frame-options", "x-content-type-options"];

describe("rate limits", () => {
  describe("global per-IP limit", () => {
    let s: TestServer;
    beforeAll(async () => {
      s = await startServer({ rate_limit: { global_per_minute: 5, user_per_minute: 3 } });
    });
    afterAll(() => s.close());

    it("answers 429 RATE_LIMIT_EXCEEDED with X-RateLimit-* headers past the limit", async () => {
      const before = Math.floor(Date.now() / 1000);
      const answers = [];
      for (let i = 0; i < 6; i++) answers.push(await s.api("GET", "/swagger/doc.json"));
      expect(answers.map((r) => r.status)).toEqual([200, 200, 200, 200, 200, 429]);
      expect(answers.map((r) => r.headers.get("x-ratelimit-remaining"))).toEqual([
        "4",
        "3",
        "2",
        "1",
        "0",
        "0",
      ]);
      for (const r of answers) expect(r.headers.get("x-ratelimit-limit")).toBe("5");
      const refused = answers[5]!;
      const reset = Number(refused.headers.get("x-ratelimit-reset"));
      // The window opened with the first request, somewhere between before and now; it lasts 60 s.
      const after = Math.ceil(Date.now() / 1000);
      expect(reset).toBeGreaterThanOrEqual(before + 60);
      expect(reset).toBeLessThanOrEqual(after + 60);
      expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(0);
      expect(refused.body.error.code).toBe("RATE_LIMIT_EXCEEDED");
      expect(refused.body.error.message).toMatch(/60 seconds/);
      for (const h of SECURITY_HEADERS) expect(refused.headers.get(h), h).toBeTruthy();
    });

    it("ignores X-Forwarded-For by default: a forged address does not get a fresh budget", async () => {
      const r = await s.api("GET", "/swagger/doc.json", { headers: { "x-forwarded-for": "203.0.113.9" } });
      expect(r.status).toBe(429);
    });

    it("does not let a made-up credential skip the limit", async () => {
      const forged: Record<string, string>[] = [
        { authorization: "Bearer made.up.token" },
        { "x-api-key": "attic_madeup" },
      ];
      for (const headers of forged) {
        const r = await s.api("GET", "/swagger/doc.json", { headers });
        expect(r.status).toBe(429);
        expect(r.body.error.code).toBe("RATE_LIMIT_EXCEEDED");
      }
    });

    it("does not limit /health and /metrics", async () => {
      for (const path of ["/health", "/api/v1/health", "/metrics"]) {
        expect((await s.api("GET", path)).status, path).toBe(200);
      }
    });

    it("limits an authenticated user per user, with headers", async () => {
      // Log in on a fresh server: this one's address is out of budget.
      const t = await startServer({ rate_limit: { user_per_minute: 3 } });
      try {
        const token = await t.login("admin", ADMIN_PASSWORD);
        const statuses = [];
        for (let i = 0; i < 4; i++) {
          const r = await t.api("GET", "/api/v1/auth/profile", { token });
          statuses.push(r.status);
          expect(r.headers.get("x-ratelimit-limit")).toBe("3");
          if (r.status === 429) expect(r.body.error.code).toBe("RATE_LIMIT_EXCEEDED");
        }
        expect(statuses).toEqual([200, 200, 200, 429]);
      } finally {
        await t.close();
      }
    });
  });

  describe("behind a trusted proxy", () => {
    let s: TestServer;
    beforeAll(async () => {
      s = await startServer({ server: { trust_proxy: true }, rate_limit: { global_per_minute: 2 } });
    });
    afterAll(() => s.close());

    it("counts each X-Forwarded-For client separately", async () => {
      const from = (ip: string) => s.api("GET", "/swagger/doc.json", { headers: { "x-forwarded-for": ip } });
      expect([(await from("198.51.100.1")).status, (await from("198.51.100.1")).status]).toEqual([200, 200]);
      expect((await from("198.51.100.1")).status).toBe(429);
      expect((await from("198.51.100.2")).status).toBe(200);
    });

    it("keys on the address the proxy appended, not on what the client wrote before it", async () => {
      const via = (forged: string) =>
        s.api("GET", "/swagger/doc.json", { headers: { "x-forwarded-for": `${forged}, 198.51.100.7` } });
      expect([(await via("10.0.0.1")).status, (await via("10.0.0.2")).status]).toEqual([200, 200]);
      expect((await via("10.0.0.3")).status).toBe(429);
    });
  });

  describe("credentials on public routes", () => {
    it("count against the address when they identify no one, not when they are valid", async () => {
      const s = await startServer({ rate_limit: { global_per_minute: 3 } });
      try {
        const token = await s.login("admin", ADMIN_PASSWORD); // 1 of the address's 3
        const bogus = { authorization: "Bearer made.up.token" };
        const statuses = [];
        for (let i = 0; i < 3; i++)
          statuses.push((await s.api("GET", "/swagger/doc.json", { headers: bogus })).status);
        expect(statuses).toEqual([200, 200, 429]);
        // The address is out of budget; a real user behind it still gets through (per-user limit).
        expect((await s.api("GET", "/api/v1/auth/profile", { token })).status).toBe(200);
        expect((await s.api("GET", "/swagger/doc.json", { token })).status).toBe(200);
      } finally {
        await s.close();
      }
    });
  });

  describe("login limit", () => {
    let s: TestServer;
    beforeAll(async () => {
      s = await startServer({ rate_limit: { login_per_minute: 2 } });
    });
    afterAll(() => s.close());

    it("limits login attempts per address, whatever the outcome", async () => {
      const attempt = (password: string) =>
        s.api("POST", "/api/v1/auth/login", { body: { username: "admin", password } });
      expect((await attempt("wrong-password-1")).status).toBe(401);
      expect((await attempt(ADMIN_PASSWORD)).status).toBe(200);
      const refused = await attempt(ADMIN_PASSWORD);
      expect(refused.status).toBe(429);
      expect(refused.body.error.code).toBe("RATE_LIMIT_EXCEEDED");
      expect(refused.headers.get("x-ratelimit-limit")).toBe("2");
    });
  });

  describe("counting", () => {
    it("counts an unauthenticated request to a protected route once", async () => {
      const s = await startServer({ rate_limit: { global_per_minute: 4 } });
      try {
        const statuses = [];
        for (let i = 0; i < 5; i++) statuses.push((await s.api("GET", "/api/v1/files")).status);
        expect(statuses).toEqual([401, 401, 401, 401, 429]);
      } finally {
        await s.close();
      }
    });
  });

  describe("media budget", () => {
    let s: TestServer;
    let token: string;
    let fileId: string;
    beforeAll(async () => {
      s = await startServer({
        rate_limit: { global_per_minute: 3, user_per_minute: 4, media_per_minute: 30 },
      });
      token = await s.login("admin", ADMIN_PASSWORD); // 1 of the address's 3
      const up = await upload(s, token, "clip.mp4", new Uint8Array(64 * 1024), { type: "video/mp4" });
      expect(up.status).toBe(201);
      fileId = up.body.id;
    });
    afterAll(() => s.close());

    it("counts stream-token requests against the token's user, never the address", async () => {
      const st = await s.api("POST", `/api/v1/files/${fileId}/stream-token`, { token });
      expect(st.status).toBe(200);
      // Scrubbing: far more range requests than the address's whole budget.
      for (let i = 0; i < 12; i++) {
        const r = await s.api("GET", `/api/v1/files/${fileId}/stream?st=${st.body.token}`, {
          headers: { range: `bytes=${i * 1024}-${i * 1024 + 1023}` },
        });
        expect([i, r.status]).toEqual([i, 206]);
        expect(r.headers.get("x-ratelimit-limit")).toBe("30");
      }
      // The address still has its own budget for anonymous traffic...
      expect((await s.api("GET", "/swagger/doc.json")).status).toBe(200);
      // ...and a made-up token is anonymous traffic: it costs the address.
      expect((await s.api("GET", `/api/v1/files/${fileId}/stream?st=made-up`)).status).toBe(401);
      expect((await s.api("GET", "/swagger/doc.json")).status).toBe(429);
    });

    it("keeps streams and thumbnails playing when the API budget is spent, and the reverse", async () => {
      const api: number[] = [];
      for (let i = 0; i < 4; i++) api.push((await s.api("GET", "/api/v1/auth/profile", { token })).status);
      expect(api).toContain(429);
      const stream = await s.api("GET", `/api/v1/files/${fileId}/stream`, {
        token,
        headers: { range: "bytes=0-99" },
      });
      expect(stream.status).toBe(206);
      const thumb = await s.api("GET", `/api/v1/files/${fileId}/thumbnail`, { token });
      expect(thumb.status).not.toBe(429);
      // Spend the media budget: the stream is refused, with the media limit in the headers.
      let last = 0;
      for (let i = 0; i < 30 && last !== 429; i++) {
        last = (
          await s.api("GET", `/api/v1/files/${fileId}/stream`, { token, headers: { range: "bytes=0-9" } })
        ).status;
      }
      expect(last).toBe(429);
    });
  });

  describe("disabled", () => {
    it("lets everything through when rate_limit.enabled is false", async () => {
      const s = await startServer({ rate_limit: { enabled: false, global_per_minute: 1 } });
      try {
        for (let i = 0; i < 3; i++) expect((await s.api("GET", "/swagger/doc.json")).status).toBe(200);
      } finally {
        await s.close();
      }
    });
  });
});
