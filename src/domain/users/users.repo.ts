import { and, eq, sql } from "drizzle-orm";
import type { Db } from "../../db/client.ts";
import { roles, userRoles, users } from "../../db/schema.ts";

export type UserRow = typeof users.$inferSelect;

/** Queries on users and their roles. */
export function createUsersRepo(db: Db) {
  return {
    byId: (id: string) => db.select().from(users).where(eq(users.id, id)).get(),
    byIdInOrg: (orgId: string, id: string) =>
      db
        .select()
        .from(users)
        .where(and(eq(users.id, id), eq(users.organization_id, orgId)))
        .get(),
    byUsername: (username: string) =>
      db.select().from(users).where(sql`${users.username} = ${username} COLLATE NOCASE`).get(),
    byEmail: (email: string) =>
      db.select().from(users).where(sql`${users.email} = ${email} COLLATE NOCASE`).get(),
    /** The user's roles, oldest assignment first. */
    rolesOf: (userId: string) =>
      db
        .select({ id: roles.id, name: roles.name, permissions: roles.permissions })
        .from(userRoles)
        .innerJoin(roles, eq(roles.id, userRoles.role_id))
        .where(eq(userRoles.user_id, userId))
        .orderBy(userRoles.created_at)
        .all(),
  };
}

export type UsersRepo = ReturnType<typeof createUsersRepo>;

/** The union of a user's role permissions. */
export function permissionsOf(rolesOfUser: { permissions: string[] }[]): string[] {
  return [...new Set(rolesOfUser.flatMap((r) => r.permissions))];
}
