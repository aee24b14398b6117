import type { z } from "@hono/zod-openapi";
import type { Db } from "../../db/client.ts";
import { AppError } from "../../errors.ts";
import { ExpiringSet } from "../../platform/expiring-set.ts";
import { newId, nowIso } from "../../platform/ids.ts";
import type { Metrics } from "../../platform/metrics.ts";
import type { PasswordHasher } from "../../platform/passwords.ts";
import type { Actor } from "../actor.ts";
import { hasPermission, intersect } from "../permissions.ts";
import { permissionsOf, sessionsCutoffMs, type UserRow, type UsersRepo } from "../users/users.repo.ts";
import { ActiveUsers } from "./active-users.ts";
import { createAuthRepo } from "./auth.repo.ts";
import type { TokenPairSchema, UserSchema } from "./auth.schemas.ts";
import { BEARER_TOKEN, malformedAuthorization } from "./authenticate.ts";
import { API_KEY_PREFIX, hashSecret, type TokenSigner, tokenKey } from "./tokens.ts";

/** A login or refresh answer: the shape of TokenPairSchema, the one source of it. */
export type TokenPair = z.output<typeof TokenPairSchema>;

/** A user as the auth endpoints show them: the shape of UserSchema. */
export type PublicUser = z.output<typeof UserSchema>;

export function publicUser(u: UserRow): PublicUser {
  return {
    id: u.id,
    username: u.username,
    email: u.email,
    organization_id: u.organization_id,
    is_active: u.is_active,
    created_at: u.created_at,
  };
}

interface Deps {
  db: Db;
  users: UsersRepo;
  tokens: TokenSigner;
  passwords: PasswordHasher;
  metrics: Metrics;
}

/** An API key's `last_used_at` is rewritten at most this often (ms). */
const API_KEY_STAMP_MS = 60_000;

const BAD_CREDENTIALS = () => new AppError("INVALID_CREDENTIALS", "invalid username or password");
const BAD_REFRESH = () => new AppError("UNAUTHENTICATED", "invalid or expired refresh token");

interface IssueOptions {
  /** The refresh-token family to continue; a new one when omitted. */
  family?: string;
  /** When the credential was checked (ms); sessions ended since then refuse the pair. */
  since?: number;
  /** The error when they did. */
  refuse?: () => AppError;
}

/**
 * Sessions: login, refresh-token rotation, logout, and turning a presented
 * credential (bearer JWT or API key) into an Actor.
 */
export function createAuthService(deps: Deps) {
  const { tokens, passwords, metrics } = deps;
  const repo = createAuthRepo(deps.db);
  const active = new ActiveUsers();
  // The gauge is computed when scraped, so users drop out of it after 15 quiet minutes.
  (metrics.activeUsers as unknown as { collect?: () => void }).collect = () =>
    metrics.activeUsers.set(active.count());

  /**
   * Issues an access token and a refresh token of `family` (a new family
   * when omitted) to `user`, whose credential was checked from `since` (ms)
   * on. Signing yields to other requests: a logout-all, password change or
   * deactivation of the user since then refuses the pair (`refuse`), and a
   * revocation of the family (logout, reuse) revokes the new refresh token,
   * so neither is outlived by a session that was refreshing at the time.
   */
  async function issue(
    user: UserRow,
    { family = newId(), since = Date.now(), refuse = BAD_REFRESH }: IssueOptions = {},
  ): Promise<TokenPair> {
    active.touch(user.id);
    const userRoles = deps.users.rolesOf(user.id);
    const access = await tokens.signAccess({
      sub: user.id,
      username: user.username,
      email: user.email,
      organization_id: user.organization_id,
      role: userRoles[0]?.name ?? "",
      permissions: permissionsOf(userRoles),
    });
    const refresh = await tokens.signRefresh(user.id, family);
    // From here to the insert nothing yields: no revocation can fall between check and insert.
    const now = deps.users.byId(user.id);
    if (!now?.is_active || sessionsCutoffMs(now) > since) throw refuse();
    repo.insertRefreshToken({
      id: refresh.jti,
      user_id: user.id,
      family_id: family,
      token_hash: hashSecret(refresh.token),
      created_at: nowIso(),
      expires_at: new Date(refresh.exp * 1000).toISOString(),
      revoked_at: repo.familyRevoked(family) ? nowIso() : null,
    });
    return {
      access_token: access.token,
      refresh_token: refresh.token,
      expires_in: tokens.accessTtl,
      user: publicUser(user),
    };
  }

  async function login(username: string, password: string): Promise<TokenPair> {
    const since = Date.now();
    const user = deps.users.byUsername(username);
    const ok = user
      ? await passwords.verify(user.password_hash, password)
      : await passwords.verifyDummy(password);
    if (!user || !ok) {
      metrics.authAttempts.inc({ method: "password", status: "failure" });
      throw BAD_CREDENTIALS();
    }
    if (!user.is_active) {
      metrics.authAttempts.inc({ method: "password", status: "inactive" });
      throw new AppError("ACCOUNT_DISABLED", "this account is deactivated");
    }
    metrics.authAttempts.inc({ method: "password", status: "success" });
    repo.stampLogin(user.id);
    return issue(user, { since, refuse: BAD_CREDENTIALS });
  }

  /**
   * Rotates a refresh token (RFC 9700 §4.14.2): the presented token is marked
   * used in the same statement that checks it is unused, so two concurrent
   * refreshes cannot both succeed; presenting a used token revokes its family.
   */
  async function refresh(refreshToken: string): Promise<TokenPair> {
    const since = Date.now();
    const verified = await tokens.verify(refreshToken, "refresh").catch(() => {
      metrics.authAttempts.inc({ method: "refresh", status: "failure" });
      throw BAD_REFRESH();
    });
    const claimed = repo.claimRefreshToken(verified.jti, hashSecret(refreshToken));
    if (!claimed) {
      const row = repo.refreshTokenById(verified.jti);
      if (row?.used_at) repo.revokeFamily(row.family_id);
      metrics.authAttempts.inc({ method: "refresh", status: "failure" });
      throw BAD_REFRESH();
    }
    const user = deps.users.byId(claimed.user_id);
    if (!user?.is_active) {
      metrics.authAttempts.inc({ method: "refresh", status: "failure" });
      throw BAD_REFRESH();
    }
    metrics.authAttempts.inc({ method: "refresh", status: "success" });
    return issue(user, { family: claimed.family_id, since });
  }

  /** Revokes every refresh token of the user (logout-all, password change, deactivation). */
  function revokeAllFor(userId: string): void {
    repo.revokeAllOfUser(userId);
    // Access and stream tokens carry no server state: the cutoff ends them too.
    repo.cutSessions(userId);
  }

  /**
   * Ends the session of the presented refresh token when it belongs to the
   * actor: the token and its family, so a refresh of it by another tab just
   * before (or during) the logout does not carry the session on.
   */
  async function logout(actor: Actor, refreshToken: string): Promise<void> {
    const verified = await tokens.verify(refreshToken, "refresh").catch(() => {
      throw BAD_REFRESH();
    });
    if (verified.sub !== actor.userId) throw BAD_REFRESH();
    const row = repo.refreshTokenById(verified.jti);
    if (row) repo.revokeFamily(row.family_id);
  }

  /** Actors by token, keyed by the token's tail (tokenKey) and checked against the whole token. */
  const actorsByToken = new Map<string, { token: string; state: object; actor: Actor }>();
  const ACTORS_MAX = 10_000;

  /** The actor behind a bearer access token; 401 when invalid or the user is inactive. */
  async function authenticateBearer(token: string): Promise<Actor> {
    const refuse = (message: string, cause?: unknown) => {
      // Only refusals are counted: a success per request would drown the login figures.
      metrics.authAttempts.inc({ method: "bearer", status: "failure" });
      return new AppError("UNAUTHENTICATED", message, undefined, { cause });
    };
    // A token seen before was checked then; a new one must have a token's characters.
    const known = actorsByToken.get(tokenKey(token));
    if (known?.token !== token && !BEARER_TOKEN.test(token)) throw refuse(malformedAuthorization().message);
    const verified = await tokens.verify(token, "access").catch((err: AppError) => {
      throw refuse(err.message, err);
    });
    const state = deps.users.authState(verified.sub);
    const user = state?.user;
    // Tokens issued before a password change or of a deactivated user stop at once.
    if (!state || !user?.is_active) throw refuse("invalid token");
    if (sessionsCutoffMs(user) > verified.issuedAtMs) throw refuse("token revoked");
    active.touch(user.id);
    // The same token and the same state (the cache of authState is emptied by any
    // write) make the same Actor: reused, so what is derived from it once per
    // actor (the folder-grant view) is not derived again on every request.
    if (known?.token === token && known.state === state) return known.actor;
    const claimed = Array.isArray(verified.claims.permissions)
      ? (verified.claims.permissions as string[])
      : [];
    // Grants reach a user with their next token; removals apply at once: the token's
    // permissions are cut down to what the user's roles give now.
    const permissions = intersect(claimed, state.permissions);
    const actor: Actor = Object.freeze({
      userId: user.id,
      username: user.username,
      organizationId: user.organization_id,
      permissions: Object.freeze(permissions) as string[],
      isInstanceAdmin: user.is_instance_admin,
      via: "jwt",
      mustChangePassword: user.must_change_password,
    });
    if (actorsByToken.size >= ACTORS_MAX) actorsByToken.delete(actorsByToken.keys().next().value!);
    actorsByToken.set(tokenKey(token), { token, state, actor });
    return actor;
  }

  /** The actor behind an API key; its permissions are the key's, never wider than the owner's now. */
  function authenticateApiKey(secret: string): Actor {
    const key = repo.apiKeyByHash(hashSecret(secret));
    const now = nowIso();
    if (!key || key.revoked_at || (key.expires_at && key.expires_at <= now)) {
      metrics.authAttempts.inc({ method: "api_key", status: "failure" });
      throw new AppError("UNAUTHENTICATED", "invalid API key");
    }
    const state = deps.users.authState(key.user_id);
    const user = state?.user;
    if (!state || !user?.is_active) {
      metrics.authAttempts.inc({ method: "api_key", status: "failure" });
      throw new AppError("UNAUTHENTICATED", "invalid API key");
    }
    // Intersect with the owner's current permissions: a demoted owner's keys shrink too.
    const permissions = intersect(key.permissions, state.permissions);
    // Recorded to the minute, like relatime: a write per request would cost more than the request.
    if (!key.last_used_at || Date.parse(now) - Date.parse(key.last_used_at) >= API_KEY_STAMP_MS)
      repo.stampApiKeyUse(key.id, now);
    active.touch(user.id);
    metrics.apiKeyUsage.inc();
    return {
      userId: user.id,
      username: user.username,
      organizationId: user.organization_id,
      permissions,
      isInstanceAdmin: false,
      via: "apikey",
      apiKeyId: key.id,
      mustChangePassword: user.must_change_password,
    };
  }

  /** True while the API key `id` authenticates and may read files (for tokens minted with it). */
  function apiKeyReads(id: string): boolean {
    const key = repo.apiKeyById(id);
    if (!key || key.revoked_at || (key.expires_at && key.expires_at <= nowIso())) return false;
    return hasPermission(key.permissions, "file:read");
  }

  /**
   * Password checks that succeeded, by a hash of (user, password, stored
   * hash): WebDAV clients send Basic credentials on every request, and an
   * Argon2 verification per request would make a folder listing take
   * seconds. A password change changes the stored hash, so its entries
   * stop matching at once. Bounded; entries live five minutes.
   */
  const basicOk = new ExpiringSet(5 * 60_000);
  /** Password checks under way, by the same key: a client opening many connections at once is checked (and counted) once. */
  const basicChecking = new Map<string, Promise<boolean>>();

  /**
   * The actor behind HTTP Basic credentials (WebDAV): the username with its
   * password, or with one of its API keys as the password (the recommended
   * way for devices: a key can be narrowed and revoked alone). 401 otherwise.
   * `guessing` runs before a password is checked (not one seen good lately,
   * nor one being checked for another request) and may refuse (a rate
   * limit): counted before the slow check, a burst of guesses cannot all
   * start before the first is counted.
   */
  async function authenticateBasic(
    username: string,
    password: string,
    guessing?: () => void,
  ): Promise<Actor> {
    if (password.startsWith(API_KEY_PREFIX)) {
      const actor = authenticateApiKey(password);
      if (actor.username.toLowerCase() !== username.toLowerCase()) {
        throw new AppError("UNAUTHENTICATED", "invalid credentials");
      }
      return actor;
    }
    const user = deps.users.byUsername(username);
    const key = user
      ? hashSecret(`${user.id}\0${password}\0${user.password_hash}`)
      : hashSecret(`\0${username}\0${password}`);
    if (!user || !basicOk.has(key)) {
      let check = basicChecking.get(key);
      if (!check) {
        guessing?.();
        check = (
          user ? passwords.verify(user.password_hash, password) : passwords.verifyDummy(password)
        ).finally(() => basicChecking.delete(key));
        basicChecking.set(key, check);
      }
      const ok = await check;
      if (!user || !ok) {
        metrics.authAttempts.inc({ method: "basic", status: "failure" });
        throw new AppError("UNAUTHENTICATED", "invalid credentials");
      }
      basicOk.add(key);
    }
    if (!user.is_active) throw new AppError("UNAUTHENTICATED", "invalid credentials");
    active.touch(user.id);
    return {
      userId: user.id,
      username: user.username,
      organizationId: user.organization_id,
      permissions: permissionsOf(deps.users.rolesOf(user.id)),
      isInstanceAdmin: user.is_instance_admin,
      via: "basic",
      mustChangePassword: user.must_change_password,
    };
  }

  return {
    login,
    refresh,
    logout,
    revokeAllFor,
    issue,
    authenticateBearer,
    authenticateApiKey,
    apiKeyReads,
    authenticateBasic,
  };
}

export type AuthService = ReturnType<typeof createAuthService>;
