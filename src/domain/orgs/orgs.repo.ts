import { asc, count, eq, sql } from "drizzle-orm";
import type { Db } from "../../db/client.ts";
import { organizations, users } from "../../db/schema.ts";
import { newId, nowIso } from "../../platform/ids.ts";
import { createBuiltinRoles } from "../setup.repo.ts";

export type OrgRow = typeof organizations.$inferSelect & { user_count: number };

/** Queries on organizations. */
export function createOrgsRepo(db: Db) {
  const withCount = () =>
    db
      .select({
        id: organizations.id,
        name: organizations.name,
        created_at: organizations.created_at,
        updated_at: organizations.updated_at,
        user_count: db.$count(users, eq(users.organization_id, organizations.id)),
      })
      .from(organizations);
  return {
    byId: (id: string): OrgRow | undefined => withCount().where(eq(organizations.id, id)).get(),
    all: (): OrgRow[] => withCount().orderBy(asc(organizations.created_at)).all(),
    count: () => db.select({ n: count() }).from(organizations).get()?.n ?? 0,
    /** Creates an organization with its built-in Admin and Member roles, in one transaction. */
    /** True when another organization already has this name (case-insensitive). */
    nameTaken: (name: string, exceptId?: string) =>
      db
        .select({ id: organizations.id })
        .from(organizations)
        .where(sql`lower(${organizations.name}) = lower(${name})`)
        .all()
        .some((o) => o.id !== exceptId),
    create: (name: string) =>
      db.transaction((tx) => {
        const id = newId();
        const now = nowIso();
        tx.insert(organizations).values({ id, name, created_at: now, updated_at: now }).run();
        const roleIds = createBuiltinRoles(tx as unknown as Db, id);
        return { id, ...roleIds };
      }),
    rename: (id: string, name: string) =>
      db.update(organizations).set({ name, updated_at: nowIso() }).where(eq(organizations.id, id)).run(),
    /** Deletes the organization; its users, roles, groups, keys, files and settings cascade. */
    delete: (id: string) => db.delete(organizations).where(eq(organizations.id, id)).run().changes,
  };
}

export type OrgsRepo = ReturnType<typeof createOrgsRepo>;
