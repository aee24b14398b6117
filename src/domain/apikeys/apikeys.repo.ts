import { and, asc, count, eq, gt, isNull, or } from "drizzle-orm";
import type { Db } from "../../db/client.ts";
import { apiKeys } from "../../db/schema.ts";
import { nowIso } from "../../platform/ids.ts";

export type ApiKeyRow = typeof apiKeys.$inferSelect;

/** Queries on API keys; every one scoped to an organization. */
export function createApiKeysRepo(db: Db) {
  const notRevoked = (orgId: string, userId: string) =>
    and(eq(apiKeys.organization_id, orgId), eq(apiKeys.user_id, userId), isNull(apiKeys.revoked_at));
  return {
    /** The user's keys that are not revoked (expired ones included, so users see them lapse). */
    listOf: (orgId: string, userId: string) =>
      db.select().from(apiKeys).where(notRevoked(orgId, userId)).orderBy(asc(apiKeys.created_at)).all(),
    /** Keys that still authenticate: not revoked and not expired. */
    countLive: (orgId: string, userId: string) =>
      db
        .select({ n: count() })
        .from(apiKeys)
        .where(
          and(notRevoked(orgId, userId), or(isNull(apiKeys.expires_at), gt(apiKeys.expires_at, nowIso()))),
        )
        .get()?.n ?? 0,
    byId: (orgId: string, id: string) =>
      db
        .select()
        .from(apiKeys)
        .where(and(eq(apiKeys.organization_id, orgId), eq(apiKeys.id, id), isNull(apiKeys.revoked_at)))
        .get(),
    insert: (row: typeof apiKeys.$inferInsert) => db.insert(apiKeys).values(row).returning().get(),
    /** Revokes every live key of the user; the number revoked. */
    revokeAllOf: (userId: string) =>
      db
        .update(apiKeys)
        .set({ revoked_at: nowIso() })
        .where(and(eq(apiKeys.user_id, userId), isNull(apiKeys.revoked_at)))
        .run().changes,
    revoke: (orgId: string, id: string) =>
      db
        .update(apiKeys)
        .set({ revoked_at: nowIso() })
        .where(and(eq(apiKeys.organization_id, orgId), eq(apiKeys.id, id), isNull(apiKeys.revoked_at)))
        .run().changes,
  };
}

export type ApiKeysRepo = ReturnType<typeof createApiKeysRepo>;
