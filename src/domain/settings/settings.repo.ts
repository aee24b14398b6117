import { and, asc, eq, inArray } from "drizzle-orm";
import type { Db } from "../../db/client.ts";
import { settings } from "../../db/schema.ts";

/** Owner of a settings object: a user of an organization, or the organization itself (userId ""). */
export interface SettingsOwner {
  organizationId: string;
  userId: string;
}

const ownedBy = (o: SettingsOwner) =>
  and(eq(settings.organization_id, o.organizationId), eq(settings.user_id, o.userId));

/** Queries on the settings table. */
export function createSettingsRepo(db: Db) {
  return {
    /** Every key of the owner, sorted. */
    all: (o: SettingsOwner) =>
      db
        .select({ key: settings.key, value: settings.value })
        .from(settings)
        .where(ownedBy(o))
        .orderBy(asc(settings.key))
        .all(),
    /** Sets and removes keys in one transaction; `check` sees the result before commit and may throw. */
    apply: (
      o: SettingsOwner,
      set: [string, unknown][],
      remove: string[],
      now: string,
      check: (rows: { key: string; value: unknown }[]) => void,
    ) =>
      db.transaction((tx) => {
        if (remove.length)
          tx.delete(settings)
            .where(and(ownedBy(o), inArray(settings.key, remove)))
            .run();
        for (const [key, value] of set) {
          tx.insert(settings)
            .values({ organization_id: o.organizationId, user_id: o.userId, key, value, updated_at: now })
            .onConflictDoUpdate({
              target: [settings.organization_id, settings.user_id, settings.key],
              set: { value, updated_at: now },
            })
            .run();
        }
        check(tx.select({ key: settings.key, value: settings.value }).from(settings).where(ownedBy(o)).all());
      }),
  };
}

export type SettingsRepo = ReturnType<typeof createSettingsRepo>;
