import { createHash, randomBytes } from "node:crypto";
import { errors as joseErrors, jwtVerify, SignJWT } from "jose";
import { AppError } from "../../errors.ts";
import { newId } from "../../platform/ids.ts";
import type { SigningKeys } from "../../platform/keys.ts";

export type TokenType = "access" | "refresh";

export interface AccessClaims {
  sub: string;
  username: string;
  email: string;
  organization_id: string;
  role: string;
  permissions: string[];
}

export interface VerifiedToken {
  sub: string;
  jti: string;
  typ: TokenType;
  exp: number;
  iat: number;
  /** Issue time in milliseconds (the `iat_ms` claim; `iat` × 1000 for tokens without it). */
  issuedAtMs: number;
  fam?: string;
  claims: Record<string, unknown>;
}

const ISSUER = "attic";

/**
 * Signs and verifies Attic's JWTs: RS256 only, with a `typ` claim so an
 * access token cannot stand in for a refresh token or the other way round.
 */
export function createTokenSigner(keys: SigningKeys, ttl: { access: number; refresh: number }) {
  async function sign(
    typ: TokenType,
    sub: string,
    claims: Record<string, unknown>,
  ): Promise<{ token: string; jti: string; exp: number }> {
    const jti = newId();
    const issuedAtMs = Date.now();
    const iat = Math.floor(issuedAtMs / 1000);
    const exp = iat + (typ === "access" ? ttl.access : ttl.refresh);
    // iat_ms: a password change revokes tokens issued before it to the millisecond,
    // so the token issued right after it (same second) still works.
    const token = await new SignJWT({ ...claims, typ, iat_ms: issuedAtMs })
      .setProtectedHeader({ alg: "RS256", typ: "JWT" })
      .setSubject(sub)
      .setIssuer(ISSUER)
      .setJti(jti)
      .setIssuedAt(iat)
      .setExpirationTime(exp)
      .sign(keys.privateKey);
    return { token, jti, exp };
  }

  /**
   * Access tokens already verified, by their text. A signature check of a
   * 4096-bit RS256 token costs more than the rest of a metadata request;
   * the answer for a given token never changes, only its expiry needs
   * re-checking. Bounded: the oldest entries go first.
   */
  const verifiedAccess = new Map<string, { token: string; verified: VerifiedToken }>();
  const CACHE_MAX = 10_000;

  async function verify(token: string, typ: TokenType): Promise<VerifiedToken> {
    const key = typ === "access" ? tokenKey(token) : undefined;
    if (key !== undefined) {
      const hit = verifiedAccess.get(key);
      if (hit?.token === token) {
        if (hit.verified.exp * 1000 > Date.now()) return hit.verified;
        verifiedAccess.delete(key);
      }
    }
    const verified = await verifySignature(token, typ);
    if (key !== undefined) {
      if (verifiedAccess.size >= CACHE_MAX) verifiedAccess.delete(verifiedAccess.keys().next().value!);
      verifiedAccess.set(key, { token, verified });
    }
    return verified;
  }

  async function verifySignature(token: string, typ: TokenType): Promise<VerifiedToken> {
    try {
      // The key is fixed and only RS256 is allowed: `none`, HS256 with the
      // public key as secret, and header-supplied keys (jwk/jku/kid) never apply.
      const { payload, protectedHeader } = await jwtVerify(token, keys.publicKey, {
        algorithms: ["RS256"],
        issuer: ISSUER,
        requiredClaims: ["sub", "jti", "exp", "iat", "typ"],
      });
      if (protectedHeader.jwk || protectedHeader.jku || protectedHeader.x5u || protectedHeader.crit) {
        throw new Error("unexpected key header");
      }
      if (payload.typ !== typ) throw new Error(`token type ${String(payload.typ)} is not ${typ}`);
      return {
        sub: payload.sub!,
        jti: payload.jti!,
        typ,
        exp: payload.exp!,
        iat: payload.iat!,
        issuedAtMs: typeof payload.iat_ms === "number" ? payload.iat_ms : payload.iat! * 1000,
        ...(typeof payload.fam === "string" ? { fam: payload.fam } : {}),
        claims: payload as Record<string, unknown>,
      };
    } catch (err) {
      const expired = err instanceof joseErrors.JWTExpired;
      throw new AppError("UNAUTHENTICATED", expired ? "token expired" : "invalid token", undefined, {
        cause: err,
      });
    }
  }

  return {
    signAccess: (claims: AccessClaims) => {
      const { sub, ...rest } = claims;
      return sign("access", sub, rest);
    },
    signRefresh: (sub: string, family: string) => sign("refresh", sub, { fam: family }),
    verify,
    accessTtl: ttl.access,
  };
}

export type TokenSigner = ReturnType<typeof createTokenSigner>;

/** SHA-256 hex of a secret: refresh tokens and API keys are stored only as this. */
export function hashSecret(secret: string): string {
  return createHash("sha256").update(secret).digest("hex");
}

/** What every API key starts with. */
export const API_KEY_PREFIX = "attic_";

/** A new API key: `attic_` + 32 random bytes in base64url. */
export function newApiKeySecret(): string {
  return `${API_KEY_PREFIX}${randomBytes(32).toString("base64url")}`;
}

/**
 * A token's key in the caches of verified tokens and actors: its last 32
 * characters (the signature's), compared with the whole token on a hit.
 * V8 hashes a string key on its first lookup, and every request brings a
 * fresh ~700-character token: keyed whole, each lookup cost ~1.6 µs,
 * keyed by its tail ~0.1. Two tokens sharing a tail only evict each other.
 */
export function tokenKey(token: string): string {
  return token.length > 32 ? token.slice(-32) : token;
}
