import type { webcrypto } from "node:crypto";
import { readFileSync } from "node:fs";
import { importPKCS8, importSPKI, SignJWT } from "jose";
import { beforeAll, describe, expect, it } from "vitest";
import {
  createTokenSigner,
  hashSecret,
  newApiKeySecret,
  type TokenSigner,
} from "../../src/domain/auth/tokens.ts";
import { testKeys } from "../helpers/server.ts";

const claims = {
  sub: "u1",
  username: "alice",
  email: "alice@example.com",
  organization_id: "o1",
  role: "Member",
  permissions: ["file:read"],
};

describe("tokens", () => {
  let signer: TokenSigner;
  let privateKey: webcrypto.CryptoKey;
  beforeAll(async () => {
    const files = testKeys();
    privateKey = await importPKCS8(readFileSync(files.private_key_file, "utf8"), "RS256");
    const publicKey = await importSPKI(readFileSync(files.public_key_file, "utf8"), "RS256");
    signer = createTokenSigner({ privateKey, publicKey, generated: false }, { access: 900, refresh: 3600 });
  });

  it("signs access tokens with docs/api.md's claims plus typ and a millisecond issue time", async () => {
    const before = Date.now();
    const { token, exp } = await signer.signAccess(claims);
    const v = await signer.verify(token, "access");
    expect(v.claims).toMatchObject({ ...claims, typ: "access", iss: "attic" });
    expect(v.exp).toBe(exp);
    expect(v.exp - v.iat).toBe(900);
    expect(v.issuedAtMs).toBeGreaterThanOrEqual(before);
    expect(Math.floor(v.issuedAtMs / 1000)).toBe(v.iat);
  });

  it("keeps access and refresh tokens apart by typ", async () => {
    const access = await signer.signAccess(claims);
    const refresh = await signer.signRefresh("u1", "fam1");
    await expect(signer.verify(access.token, "refresh")).rejects.toMatchObject({ code: "UNAUTHENTICATED" });
    await expect(signer.verify(refresh.token, "access")).rejects.toMatchObject({ code: "UNAUTHENTICATED" });
    expect((await signer.verify(refresh.token, "refresh")).fam).toBe("fam1");
  });

  it("rejects other algorithms, wrong issuers, missing claims and expired tokens", async () => {
    const now = Math.floor(Date.now() / 1000);
    const base = () => new SignJWT({ ...claims, typ: "access" }).setJti("j").setIssuedAt(now);
    const wrongIssuer = await base()
      .setProtectedHeader({ alg: "RS256" })
      .setIssuer("evil")
      .setExpirationTime(now + 60)
      .sign(privateKey);
    const noExp = await base().setProtectedHeader({ alg: "RS256" }).setIssuer("attic").sign(privateKey);
    const expired = await base()
      .setProtectedHeader({ alg: "RS256" })
      .setIssuer("attic")
      .setExpirationTime(now - 10)
      .sign(privateKey);
    const hs = await base()
      .setProtectedHeader({ alg: "HS256" })
      .setIssuer("attic")
      .setExpirationTime(now + 60)
      .sign(new TextEncoder().encode(readFileSync(testKeys().public_key_file, "utf8")));
    for (const t of [wrongIssuer, noExp, hs, "", "a.b.c", "not a token"]) {
      await expect(signer.verify(t, "access")).rejects.toMatchObject({ code: "UNAUTHENTICATED" });
    }
    await expect(signer.verify(expired, "access")).rejects.toThrow(/expired/);
  });

  it("API key secrets are long, random, and stored only as a SHA-256", () => {
    const a = newApiKeySecret();
    const b = newApiKeySecret();
    expect(a).toMatch(/^attic_[A-Za-z0-9_-]{43}$/);
    expect(a).not.toBe(b);
    expect(hashSecret(a)).toMatch(/^[0-9a-f]{64}$/);
    expect(hashSecret(a)).not.toBe(hashSecret(b));
  });
});
