import { Code, ConnectError } from "@connectrpc/connect";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SettingsService } from "../../src/gen/attic/v1/settings_pb.ts";
import { startServer, type TestServer } from "../helpers/server.ts";
import { connectJson, PROTOCOLS, rpcClient } from "./clients.ts";

describe("SettingsService over RPC", () => {
  let s: TestServer;
  let token: string;
  beforeAll(async () => {
    s = await startServer();
    token = await s.login();
  });
  afterAll(() => s.close());

  it.each(PROTOCOLS)("merges and reads user settings over %s", async (protocol) => {
    const c = rpcClient(s.url, SettingsService, token, protocol);
    const key = protocol.replaceAll("-", "_");
    const up = await c.updateUserSettings({ settings: { [key]: { on: true }, gone: null } });
    expect(up.settings?.[key]).toEqual({ on: true });
    const got = await c.getUserSettings({});
    expect(got.settings?.[key]).toEqual({ on: true });
    expect(got.settings).not.toHaveProperty("gone");
  });

  it("shares the store with REST", async () => {
    const c = rpcClient(s.url, SettingsService, token);
    await c.updateAppSettings({ settings: { site_name: "Home" } });
    const rest = await s.api("GET", "/api/v1/settings/app", { token });
    expect(rest.body.site_name).toBe("Home");
  });

  it("answers unauthenticated without a credential, on every protocol", async () => {
    for (const protocol of PROTOCOLS) {
      const c = rpcClient(s.url, SettingsService, undefined, protocol);
      const err = await c.getUserSettings({}).catch((e) => ConnectError.from(e));
      expect(err, protocol).toBeInstanceOf(ConnectError);
      expect((err as ConnectError).code, protocol).toBe(Code.Unauthenticated);
    }
  });

  it("speaks Connect JSON with snake_case errors over plain fetch", async () => {
    const ok = await connectJson(s.url, "attic.v1.SettingsService/GetUserSettings", {}, token);
    expect(ok.status).toBe(200);
    expect(ok.body).toHaveProperty("settings");
    expect(ok.headers.get("x-content-type-options")).toBe("nosniff");
    expect(ok.headers.get("x-ratelimit-limit")).toMatch(/^\d+$/);
    expect(ok.headers.get("x-request-id")).toBeTruthy();
    const bad = await connectJson(
      s.url,
      "attic.v1.SettingsService/UpdateUserSettings",
      {
        settings: { "bad key!": 1 },
      },
      token,
    );
    expect(bad.status).toBe(400);
    expect(bad.body).toMatchObject({ code: "invalid_argument", message: expect.any(String) });
    expect(bad.headers.get("attic-error-code")).toBe("ERR_VALIDATION");
  });
});

describe("RPC CORS", () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startServer({ server: { cors_origins: ["https://ui.example"] } });
  });
  afterAll(() => s.close());

  const preflight = (origin: string) =>
    fetch(`${s.url}/attic.v1.SettingsService/GetUserSettings`, {
      method: "OPTIONS",
      headers: {
        origin,
        "access-control-request-method": "POST",
        "access-control-request-headers": "content-type,authorization,connect-protocol-version",
      },
    });

  it("answers preflights from configured origins only", async () => {
    const ok = await preflight("https://ui.example");
    expect(ok.status).toBe(204);
    expect(ok.headers.get("access-control-allow-origin")).toBe("https://ui.example");
    expect(ok.headers.get("access-control-allow-headers")?.toLowerCase()).toContain("authorization");
    const foreign = await preflight("https://evil.example");
    expect(foreign.headers.get("access-control-allow-origin")).toBeNull();
  });

  it("lets a configured origin read answers and error codes", async () => {
    const token = await s.login();
    const r = await fetch(`${s.url}/attic.v1.SettingsService/GetUserSettings`, {
      method: "POST",
      headers: {
        origin: "https://ui.example",
        "content-type": "application/json",
        authorization: `Bearer ${token}`,
      },
      body: "{}",
    });
    expect(r.status).toBe(200);
    expect(r.headers.get("access-control-allow-origin")).toBe("https://ui.example");
    expect(r.headers.get("access-control-expose-headers")).toContain("Attic-Error-Code");
  });
});
