import { and, asc, count, eq, sql } from "drizzle-orm";
import type { Db } from "../../db/client.ts";
import { roles, userRoles, users } from "../../db/schema.ts";
import { nowIso } from "../../platform/ids.ts";

export type RoleRow = typeof roles.$inferSelect;

/** Queries on roles and role assignments; every one scoped to an organization. */
export function createRolesRepo(db: Db) {
  const inOrg = (orgId: string, id: string) => and(eq(roles.organization_id, orgId), eq(roles.id, id));
  return {
    list: (orgId: string) =>
      db.select().from(roles).where(eq(roles.organization_id, orgId)).orderBy(asc(roles.created_at)).all(),
    byId: (orgId: string, id: string) => db.select().from(roles).where(inOrg(orgId, id)).get(),
    byName: (orgId: string, name: string) =>
      db
        .select()
        .from(roles)
        .where(and(eq(roles.organization_id, orgId), sql`${roles.name} = ${name} COLLATE NOCASE`))
        .get(),
    insert: (row: typeof roles.$inferInsert) => db.insert(roles).values(row).returning().get(),
    update: (
      orgId: string,
      id: string,
      set: Partial<Pick<RoleRow, "name" | "description" | "permissions">>,
    ) =>
      db
        .update(roles)
        .set({ ...set, updated_at: nowIso() })
        .where(inOrg(orgId, id))
        .returning()
        .get(),
    delete: (orgId: string, id: string) => db.delete(roles).where(inOrg(orgId, id)).run().changes,
    /** Gives the user the role; giving it twice is a no-op. */
    assign: (userId: string, roleId: string) =>
      db
        .insert(userRoles)
        .values({ user_id: userId, role_id: roleId, created_at: nowIso() })
        .onConflictDoNothing()
        .run(),
    unassign: (userId: string, roleId: string) =>
      db
        .delete(userRoles)
        .where(and(eq(userRoles.user_id, userId), eq(userRoles.role_id, roleId)))
        .run().changes,
    /** How many active users hold the role (guards against removing the last admin). */
    activeHolders: (roleId: string) =>
      db
        .select({ n: count() })
        .from(userRoles)
        .innerJoin(users, eq(users.id, userRoles.user_id))
        .where(and(eq(userRoles.role_id, roleId), eq(users.is_active, true)))
        .get()?.n ?? 0,
    /** The users holding the role. */
    holders: (roleId: string) =>
      db
        .select({ id: users.id, is_instance_admin: users.is_instance_admin })
        .from(userRoles)
        .innerJoin(users, eq(users.id, userRoles.user_id))
        .where(eq(userRoles.role_id, roleId))
        .all(),
    holds: (userId: string, roleId: string) =>
      db
        .select({ user_id: userRoles.user_id })
        .from(userRoles)
        .where(and(eq(userRoles.user_id, userId), eq(userRoles.role_id, roleId)))
        .get() !== undefined,
  };
}

export type RolesRepo = ReturnType<typeof createRolesRepo>;
