import { readFileSync } from "node:fs";
import { exportJWK, generateKeyPair, importPKCS8, SignJWT } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { claimsOf } from "../helpers/accounts.ts";
import { ADMIN_PASSWORD, startServer, type TestServer, testKeys } from "../helpers/server.ts";

const b64 = (o: unknown) => Buffer.from(JSON.stringify(o)).toString("base64url");

describe("auth: token attacks and refresh rotation", () => {
  let s: TestServer;
  let pair: { access_token: string; refresh_token: string };
  const profile = (token: string) => s.api("GET", "/api/v1/auth/profile", { token });
  const refresh = (refresh_token: string) =>
    s.api("POST", "/api/v1/auth/refresh", { body: { refresh_token } });
  const login = async () =>
    (await s.api("POST", "/api/v1/auth/login", { body: { username: "admin", password: ADMIN_PASSWORD } }))
      .body;

  /** A token signed with the server's real private key, claims as given. */
  async function forge(claims: Record<string, unknown>, times: { iat: number; exp: number }) {
    const key = await importPKCS8(readFileSync(testKeys().private_key_file, "utf8"), "RS256");
    return new SignJWT(claims)
      .setProtectedHeader({ alg: "RS256", typ: "JWT" })
      .setIssuer("attic")
      .setJti(crypto.randomUUID())
      .setIssuedAt(times.iat)
      .setExpirationTime(times.exp)
      .sign(key);
  }

  beforeAll(async () => {
    s = await startServer();
    pair = await login();
  });
  afterAll(() => s.close());

  it("accepts the genuine token", async () => {
    expect((await profile(pair.access_token)).status).toBe(200);
  });

  it("rejects alg none", async () => {
    const [, payload] = pair.access_token.split(".");
    for (const alg of ["none", "None", "NONE"]) {
      const token = `${b64({ alg, typ: "JWT" })}.${payload}.`;
      const r = await profile(token);
      expect(r.status, alg).toBe(401);
      expect(r.body.error.code).toBe("ERR_UNAUTHENTICATED");
    }
  });

  it("rejects HS256 signed with the public key PEM as the secret", async () => {
    const secret = new TextEncoder().encode(readFileSync(testKeys().public_key_file, "utf8"));
    const token = await new SignJWT(claimsOf(pair.access_token))
      .setProtectedHeader({ alg: "HS256", typ: "JWT" })
      .sign(secret);
    expect((await profile(token)).status).toBe(401);
  });

  it("rejects a tampered payload", async () => {
    const [header, payload, sig] = pair.access_token.split(".");
    const claims = {
      ...JSON.parse(Buffer.from(payload!, "base64url").toString()),
      permissions: ["*:*", "x:y"],
    };
    expect((await profile(`${header}.${b64(claims)}.${sig}`)).status).toBe(401);
  });

  it("rejects keys named or supplied in the header (jwk, jku, kid)", async () => {
    const attacker = await generateKeyPair("RS256");
    const jwk = await exportJWK(attacker.publicKey);
    const headers = [
      { jwk },
      { jku: "http://127.0.0.1:1/jwks.json" },
      { kid: "../../keys/attacker" },
      { kid: "0" },
    ];
    for (const extra of headers) {
      const token = await new SignJWT(claimsOf(pair.access_token))
        .setProtectedHeader({ alg: "RS256", ...extra })
        .sign(attacker.privateKey);
      expect((await profile(token)).status, Object.keys(extra)[0]).toBe(401);
    }
  });

  it("rejects an expired token, while the same forged shape with a live exp works", async () => {
    const claims = { ...claimsOf(pair.access_token) };
    for (const k of ["iat", "exp", "jti", "iss", "iat_ms"]) delete claims[k];
    const now = Math.floor(Date.now() / 1000);
    const live = await forge(claims, { iat: now, exp: now + 600 });
    expect((await profile(live)).status).toBe(200);
    const expired = await forge(claims, { iat: now - 3600, exp: now - 1800 });
    const r = await profile(expired);
    expect(r.status).toBe(401);
    expect(r.body.error.message).toMatch(/expired/);
  });

  it("does not let an access token refresh, nor a refresh token authenticate", async () => {
    expect((await refresh(pair.access_token)).status).toBe(401);
    expect((await profile(pair.refresh_token)).status).toBe(401);
  });

  it("ignores tokens in query parameters", async () => {
    for (const q of ["access_token", "token", "api_key", "jwt"]) {
      const r = await s.api("GET", `/api/v1/auth/profile?${q}=${pair.access_token}`);
      expect(r.status, q).toBe(401);
    }
  });

  it("counts refused bearer tokens in attic_auth_attempts_total", async () => {
    const m = await s.api("GET", "/metrics");
    expect(m.text).toMatch(/attic_auth_attempts_total\{method="bearer",status="failure"\} [1-9]/);
  });

  it("rejects malformed Authorization headers and garbage tokens with 401", async () => {
    for (const authorization of [
      "Bearer",
      "Basic YWRtaW46eA==",
      "Bearer a.b.c",
      "Bearer " + "x".repeat(5000),
    ]) {
      const r = await s.api("GET", "/api/v1/auth/profile", { headers: { authorization } });
      expect(r.status, authorization.slice(0, 20)).toBe(401);
    }
  });

  it("reads the token after Bearer and white space, knows it by the whole token, not by its tail", async () => {
    const { access_token } = await login();
    const profile = (authorization: string) =>
      s.api("GET", "/api/v1/auth/profile", { headers: { authorization } });
    expect((await profile(`Bearer ${access_token}`)).status).toBe(200);
    expect((await profile(`bearer \t ${access_token}  `)).status).toBe(200);
    // Same last characters (the caches' key), another token: never the cached answer.
    const sameTail = `${access_token[0] === "e" ? "f" : "e"}${access_token.slice(1)}`;
    expect((await profile(`Bearer ${sameTail}`)).status).toBe(401);
    expect((await profile(`Bearer x${access_token}`)).status).toBe(401);
    // Characters a token cannot hold, also after the token was used once: malformed, every time.
    for (const bad of [`${access_token}$`, `${access_token} extra`, `${access_token.slice(0, -1)}\u00e9`]) {
      for (let i = 0; i < 2; i++) {
        const r = await profile(`Bearer ${bad}`);
        expect(r.status).toBe(401);
        expect(r.body.error.message).toBe("malformed Authorization header");
      }
    }
    expect((await profile(`Bearer ${access_token}`)).status).toBe(200);
  });

  it("reusing a used refresh token revokes the whole family (RFC 9700 §4.14.2)", async () => {
    const first = await login();
    const second = await refresh(first.refresh_token);
    expect(second.status).toBe(200);
    const reuse = await refresh(first.refresh_token);
    expect(reuse.status).toBe(401);
    // The legitimate holder's newer token died with the family.
    expect((await refresh(second.body.refresh_token)).status).toBe(401);
    // Another session (another family) is untouched.
    const other = await login();
    expect((await refresh(other.refresh_token)).status).toBe(200);
  });

  it("concurrent refreshes of one token give exactly one success", async () => {
    const { refresh_token } = await login();
    const results = await Promise.all(Array.from({ length: 6 }, () => refresh(refresh_token)));
    const ok = results.filter((r) => r.status === 200);
    // At most one (the token is single use) and at least one (a valid token refreshes).
    expect(ok.length).toBe(1);
    for (const r of results) expect([200, 401]).toContain(r.status);
  });

  it("rejects refresh bodies that are not tokens with 4xx", async () => {
    for (const body of [{}, { refresh_token: 5 }, { refresh_token: "" }, { refresh_token: "x.y.z" }]) {
      const r = await s.api("POST", "/api/v1/auth/refresh", { body });
      expect([400, 401], JSON.stringify(body)).toContain(r.status);
    }
  });
});
