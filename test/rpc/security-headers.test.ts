import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SECURITY_HEADERS } from "../../src/platform/security-headers.ts";
import { startServer, type TestServer } from "../helpers/server.ts";

/** Every response, whatever the API or outcome, carries the one table of security headers. */
describe("security headers on every response", () => {
  let s: TestServer;
  let token: string;
  beforeAll(async () => {
    s = await startServer();
    token = await s.login();
  });
  afterAll(() => s.close());

  const expectAll = (what: string, headers: Headers) => {
    for (const [name, value] of Object.entries(SECURITY_HEADERS)) {
      if (name === "Content-Security-Policy") expect(headers.get(name), `${what}: ${name}`).toBeTruthy();
      else expect([what, name, headers.get(name)]).toEqual([what, name, value]);
    }
  };
  const post = (path: string, type: string, body: RequestInit["body"], auth = true) =>
    fetch(`${s.url}${path}`, {
      method: "POST",
      headers: { "content-type": type, ...(auth ? { authorization: `Bearer ${token}` } : {}) },
      body,
    });

  it("RPC: Connect JSON answers and errors, gRPC-Web, an undecodable body", async () => {
    const ok = await post("/attic.v1.SettingsService/GetUserSettings", "application/json", "{}");
    expect(ok.status).toBe(200);
    expectAll("connect ok", ok.headers);
    const unauthenticated = await post(
      "/attic.v1.SettingsService/GetUserSettings",
      "application/json",
      "{}",
      false,
    );
    expect(unauthenticated.status).toBe(401);
    expectAll("connect error", unauthenticated.headers);
    const web = await post(
      "/attic.v1.SettingsService/GetUserSettings",
      "application/grpc-web+proto",
      new Uint8Array([0, 0, 0, 0, 0]),
    );
    expectAll("grpc-web", web.headers);
    const garbage = await post(
      "/attic.v1.SettingsService/GetUserSettings",
      "application/proto",
      new Uint8Array([0xff]),
    );
    expect(garbage.status).toBe(400);
    expectAll("undecodable", garbage.headers);
  });

  it("REST: JSON, 404, downloads (with their own stricter CSP)", async () => {
    const json = await fetch(`${s.url}/api/v1/auth/profile`, {
      headers: { authorization: `Bearer ${token}` },
    });
    expectAll("json", json.headers);
    const missing = await fetch(`${s.url}/api/v1/nothing-here`);
    expectAll("404", missing.headers);
    const form = new FormData();
    form.set("file", new Blob(["<svg onload=alert(1)>"], { type: "image/svg+xml" }), "x.svg");
    const up = await s.api("POST", "/api/v1/files", { token, body: form });
    const dl = await fetch(`${s.url}/api/v1/files/${up.body.id}/download`, {
      headers: { authorization: `Bearer ${token}` },
    });
    expectAll("download", dl.headers);
    expect(dl.headers.get("content-security-policy")).toBe("sandbox; default-src 'none'");
    // One value per header, never two merged copies.
    expect(dl.headers.get("x-content-type-options")).toBe("nosniff");
  });
});
