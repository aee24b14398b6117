import { and, eq, isNotNull, isNull, type SQL } from "drizzle-orm";
import type { Db } from "../../db/client.ts";
import { apiKeys, refreshTokens, users } from "../../db/schema.ts";
import { nowIso } from "../../platform/ids.ts";

export type RefreshTokenRow = typeof refreshTokens.$inferSelect;
export type ApiKeyRow = typeof apiKeys.$inferSelect;

/** The SQL of sign-in: refresh tokens, API key lookups, a user's login and session cutoff stamps. */
export function createAuthRepo(db: Db) {
  /** Marks revoked the not-yet-revoked refresh tokens matching `which`. */
  const revokeWhere = (which: SQL): void => {
    db.update(refreshTokens)
      .set({ revoked_at: nowIso() })
      .where(and(which, isNull(refreshTokens.revoked_at)))
      .run();
  };
  return {
    insertRefreshToken: (row: typeof refreshTokens.$inferInsert) =>
      db.insert(refreshTokens).values(row).run(),

    /**
     * Marks the refresh token `id` with hash `hash` used, in the same
     * statement that checks it is unused and unrevoked: the row when it was
     * claimed now, undefined when not (two concurrent refreshes: one wins).
     */
    claimRefreshToken: (id: string, hash: string): RefreshTokenRow | undefined =>
      db
        .update(refreshTokens)
        .set({ used_at: nowIso() })
        .where(
          and(
            eq(refreshTokens.id, id),
            eq(refreshTokens.token_hash, hash),
            isNull(refreshTokens.used_at),
            isNull(refreshTokens.revoked_at),
          ),
        )
        .returning()
        .get(),

    refreshTokenById: (id: string): RefreshTokenRow | undefined =>
      db.select().from(refreshTokens).where(eq(refreshTokens.id, id)).get(),

    /** True when a token of the family was revoked (a logout, or a reuse that revoked it whole). */
    familyRevoked: (familyId: string): boolean =>
      db
        .select({ id: refreshTokens.id })
        .from(refreshTokens)
        .where(and(eq(refreshTokens.family_id, familyId), isNotNull(refreshTokens.revoked_at)))
        .limit(1)
        .get() !== undefined,

    revokeFamily: (familyId: string) => revokeWhere(eq(refreshTokens.family_id, familyId)),
    revokeAllOfUser: (userId: string) => revokeWhere(eq(refreshTokens.user_id, userId)),

    /** Access and stream tokens issued before now stop working (they carry no server state). */
    cutSessions: (userId: string) =>
      db.update(users).set({ sessions_revoked_at: nowIso() }).where(eq(users.id, userId)).run(),

    stampLogin: (userId: string) =>
      db.update(users).set({ last_login_at: nowIso() }).where(eq(users.id, userId)).run(),

    apiKeyById: (id: string): ApiKeyRow | undefined =>
      db.select().from(apiKeys).where(eq(apiKeys.id, id)).get(),

    apiKeyByHash: (hash: string): ApiKeyRow | undefined =>
      db.select().from(apiKeys).where(eq(apiKeys.key_hash, hash)).get(),

    stampApiKeyUse: (id: string, at: string) =>
      db.update(apiKeys).set({ last_used_at: at }).where(eq(apiKeys.id, id)).run(),
  };
}

export type AuthRepo = ReturnType<typeof createAuthRepo>;
