import { errors as joseErrors, jwtVerify, SignJWT } from "jose";
import { AppError } from "../../errors.ts";
import { newId } from "../../platform/ids.ts";
import type { SigningKeys } from "../../platform/keys.ts";
import { type Actor, requirePermission } from "../actor.ts";
import type { Tree } from "../files/tree.ts";
import { sessionsCutoffMs, type UserRow, type UsersRepo } from "../users/users.repo.ts";
import { readerActor } from "./reader-actor.ts";

/** Lifetime of a stream token: long enough to watch a film with pauses. */
export const STREAM_TOKEN_TTL_SECONDS = 6 * 60 * 60;

const ISSUER = "attic";
const TYP = "stream";

export interface StreamGrant {
  userId: string;
  organizationId: string;
  fileId: string;
  /** Milliseconds since the epoch; tokens older than the user's sessions cutoff stop working. */
  issuedAtMs: number;
  /** The API key it was minted with, if any. */
  apiKeyId?: string;
}

/**
 * Short-lived, single-file read grants for media elements and download links
 * (`<video src>`, `<a download>` cannot send an Authorization header).
 *
 * A stream token is an RS256 JWT with `typ: "stream"` and the file id in
 * `fid`; the access-token verifier rejects that `typ`, so it is never a
 * general credential, and `verify` accepts it only for the file it names.
 */
export function createStreamTokens(deps: {
  files: Pick<Tree, "live">;
  users: Pick<UsersRepo, "byId" | "rolesOf">;
  keys: SigningKeys;
  /** True while the API key `id` still authenticates and may read files (tokens minted by a key end with it). */
  apiKeyReads: (id: string) => boolean;
}) {
  /** Issues a token for a live file of the actor's organization (404 otherwise, as for any missing file). */
  async function issue(actor: Actor, fileId: string): Promise<{ token: string; expires_at: string }> {
    requirePermission(actor, "file:read");
    // Only what the actor may read (folder grants): another person's private file is 404.
    // A folder's token serves its zip download (GET /directories/{id}/zip?st=).
    deps.files.live(actor, fileId);
    const issuedAtMs = Date.now();
    const iat = Math.floor(issuedAtMs / 1000);
    const exp = iat + STREAM_TOKEN_TTL_SECONDS;
    const { privateKey } = deps.keys;
    const claims = { typ: TYP, org: actor.organizationId, fid: fileId, iat_ms: issuedAtMs };
    // Minted with an API key: the key's id, so revoking the key ends the token too.
    const key = actor.via === "apikey" && actor.apiKeyId ? { key: actor.apiKeyId } : {};
    const token = await new SignJWT({ ...claims, ...key })
      .setProtectedHeader({ alg: "RS256", typ: "JWT" })
      .setSubject(actor.userId)
      .setIssuer(ISSUER)
      .setJti(newId())
      .setIssuedAt(iat)
      .setExpirationTime(exp)
      .sign(privateKey);
    return { token, expires_at: new Date(exp * 1000).toISOString() };
  }

  /** The grant of a token presented for `fileId`; 401 when invalid, expired, or for another file. */
  async function verify(token: string, fileId: string): Promise<StreamGrant> {
    try {
      const { publicKey } = deps.keys;
      const { payload, protectedHeader } = await jwtVerify(token, publicKey, {
        algorithms: ["RS256"],
        issuer: ISSUER,
        requiredClaims: ["sub", "exp", "iat", "typ", "org", "fid"],
      });
      if (protectedHeader.jwk || protectedHeader.jku || protectedHeader.x5u || protectedHeader.crit) {
        throw new Error("unexpected key header");
      }
      if (payload.typ !== TYP) throw new Error("not a stream token");
      if (payload.fid !== fileId) throw new Error("stream token is for another file");
      const issuedAtMs = typeof payload.iat_ms === "number" ? payload.iat_ms : payload.iat! * 1000;
      return {
        userId: payload.sub!,
        organizationId: String(payload.org),
        fileId,
        issuedAtMs,
        ...(typeof payload.key === "string" ? { apiKeyId: payload.key } : {}),
      };
    } catch (err) {
      const expired = err instanceof joseErrors.JWTExpired;
      throw new AppError(
        "UNAUTHENTICATED",
        expired ? "stream token expired" : "invalid stream token",
        undefined,
        {
          cause: err,
        },
      );
    }
  }

  /**
   * The caller a token presented for `fileId` stands for: a read-only actor
   * (`file:read`) of its user, checked against the user's state now, like a
   * bearer token: 401 when the token is invalid, or the user is inactive, has
   * moved organization, changed password or ended all sessions since it was
   * issued, or no longer holds `file:read`, or the API key it was minted
   * with was revoked, expired or no longer reads files.
   */
  async function authenticate(token: string, fileId: string): Promise<Actor> {
    const grant = await verify(token, fileId);
    const user = deps.users.byId(grant.userId);
    const actor = readerActor(user, deps.users);
    if (
      !actor ||
      actor.organizationId !== grant.organizationId ||
      sessionsCutoffMs(user as UserRow) > grant.issuedAtMs ||
      (grant.apiKeyId !== undefined && !deps.apiKeyReads(grant.apiKeyId))
    ) {
      throw new AppError("UNAUTHENTICATED", "invalid stream token");
    }
    return actor;
  }

  return { issue, verify, authenticate };
}

export type StreamTokens = ReturnType<typeof createStreamTokens>;
