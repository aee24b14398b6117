import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer, type TestServer } from "../helpers/server.ts";

describe("settings", () => {
  let s: TestServer;
  let admin: string;
  let member: string;

  beforeAll(async () => {
    s = await startServer();
    admin = await s.login();
    const created = await s.api("POST", "/api/v1/users", {
      token: admin,
      body: { username: "setmember", email: "setmember@example.com", password: "correct-Horse-battery-9x" },
    });
    if (created.status === 201) member = await s.login("setmember", "correct-Horse-battery-9x");
  });
  afterAll(() => s.close());

  it("starts empty and merges user settings; null removes a key", async () => {
    expect((await s.api("GET", "/api/v1/settings/user", { token: admin })).body).toEqual({});
    const put = await s.api("PUT", "/api/v1/settings/user", {
      token: admin,
      body: { theme: "dark", "player.volume": 0.8, layout: { cols: [1, 2] } },
    });
    expect(put.status).toBe(200);
    expect(put.body).toEqual({ theme: "dark", "player.volume": 0.8, layout: { cols: [1, 2] } });
    const merged = await s.api("PUT", "/api/v1/settings/user", {
      token: admin,
      body: { theme: null, lang: "fr" },
    });
    expect(merged.body).toEqual({ "player.volume": 0.8, layout: { cols: [1, 2] }, lang: "fr" });
    expect((await s.api("GET", "/api/v1/settings/user", { token: admin })).body).toEqual(merged.body);
  });

  it("keeps each user's settings apart", async () => {
    if (!member) return expect.fail("user creation (POST /api/v1/users) not available yet");
    expect((await s.api("GET", "/api/v1/settings/user", { token: member })).body).toEqual({});
    await s.api("PUT", "/api/v1/settings/user", { token: member, body: { theme: "light" } });
    expect((await s.api("GET", "/api/v1/settings/user", { token: admin })).body.theme).toBeUndefined();
  });

  it("requires authentication", async () => {
    const r = await s.api("GET", "/api/v1/settings/user");
    expect(r.status).toBe(401);
    expect(r.body.error.code).toBe("ERR_UNAUTHENTICATED");
  });

  it("rejects bad keys, non-objects, too many keys and oversized values with 4xx", async () => {
    const cases: [unknown, number][] = [
      [{ "bad key!": 1 }, 400],
      [[1, 2], 400],
      ["text", 400],
      [Object.fromEntries(Array.from({ length: 101 }, (_, i) => [`k${i}`, i])), 400],
      [{ big: "x".repeat(17 * 1024) }, 413],
    ];
    for (const [body, status] of cases) {
      const r = await s.api("PUT", "/api/v1/settings/user", { token: admin, body });
      expect(r.status, JSON.stringify(body).slice(0, 40)).toBe(status);
      expect(r.body.error.code).toMatch(/^ERR_/);
    }
  });

  it("bounds the total size of one owner's settings", async () => {
    const chunk = "y".repeat(15 * 1024);
    let last = 0;
    for (let i = 0; i < 6; i++) {
      last = (await s.api("PUT", "/api/v1/settings/user", { token: admin, body: { [`blob${i}`]: chunk } }))
        .status;
    }
    expect(last).toBe(413);
    const all = (await s.api("GET", "/api/v1/settings/user", { token: admin })).body;
    expect(JSON.stringify(all).length).toBeLessThan(70 * 1024);
  });

  it("lets org admins change app settings and org readers read them", async () => {
    const put = await s.api("PUT", "/api/v1/settings/app", { token: admin, body: { site_name: "Home" } });
    expect(put.status).toBe(200);
    expect(put.body).toEqual({ site_name: "Home" });
    if (!member) return expect.fail("user creation (POST /api/v1/users) not available yet");
    const read = await s.api("GET", "/api/v1/settings/app", { token: member });
    expect(read.status).toBe(200);
    expect(read.body).toEqual({ site_name: "Home" });
    const denied = await s.api("PUT", "/api/v1/settings/app", { token: member, body: { site_name: "Mine" } });
    expect(denied.status).toBe(403);
    expect(denied.body.error.code).toBe("ERR_PERMISSION_DENIED");
  });
});

describe("settings across organizations", () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startServer({ auth: { registration_enabled: true } });
  });
  afterAll(() => s.close());

  it("never shows one organization's app settings to another", async () => {
    const admin = await s.login();
    await s.api("PUT", "/api/v1/settings/app", { token: admin, body: { site_name: "Home" } });
    const reg = await s.api("POST", "/api/v1/auth/register", {
      body: { username: "otherorg", email: "o@example.com", password: "correct-Horse-battery-9y" },
    });
    expect(reg.status).toBe(201);
    const other = reg.body.access_token;
    const r = await s.api("GET", "/api/v1/settings/app", { token: other });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({});
  });
});
