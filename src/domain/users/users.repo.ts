import { and, asc, count, eq, sql } from "drizzle-orm";
import { changeWatch } from "../../db/change-watch.ts";
import type { Db } from "../../db/client.ts";
import { roles, userRoles, users } from "../../db/schema.ts";
import { nowIso } from "../../platform/ids.ts";

export type UserRow = typeof users.$inferSelect;
export type NewUserRow = typeof users.$inferInsert;

/** Queries on users and their roles. */
export function createUsersRepo(db: Db) {
  // Prepared once: both run on every authenticated request.
  const byIdStmt = db
    .select()
    .from(users)
    .where(eq(users.id, sql.placeholder("id")))
    .prepare();
  const rolesOfStmt = db
    .select({ id: roles.id, name: roles.name, permissions: roles.permissions })
    .from(userRoles)
    .innerJoin(roles, eq(roles.id, userRoles.role_id))
    .where(eq(userRoles.user_id, sql.placeholder("userId")))
    .orderBy(userRoles.created_at, roles.name)
    .prepare();
  // Every authenticated request needs the user and the union of their roles'
  // permissions; they change rarely, and any write to the database empties
  // this (changeWatch), so a change is seen by the very next request.
  const watch = changeWatch(db.$client);
  const authCache = new Map<string, AuthState | null>();
  return {
    byId: (id: string): UserRow | undefined => byIdStmt.get({ id }),
    /** The user and their current permissions, for authentication; undefined when there is no such user. */
    authState(id: string): AuthState | undefined {
      if (watch.changed()) authCache.clear();
      let state = authCache.get(id);
      if (state === undefined) {
        const user = byIdStmt.get({ id });
        state = user
          ? Object.freeze({
              user: Object.freeze(user),
              permissions: Object.freeze(permissionsOf(rolesOfStmt.all({ userId: id }))),
            })
          : null;
        if (authCache.size >= AUTH_CACHE_MAX) authCache.clear();
        authCache.set(id, state);
      }
      return state ?? undefined;
    },
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
    rolesOf: (userId: string) => rolesOfStmt.all({ userId }),
    /** One page of an organization's users, by username. */
    listInOrg: (orgId: string, limit: number, offset: number) =>
      db
        .select()
        .from(users)
        .where(eq(users.organization_id, orgId))
        .orderBy(asc(sql`${users.username} COLLATE NOCASE`))
        .limit(limit)
        .offset(offset)
        .all(),
    /** Active instance admins, instance-wide. */
    countInstanceAdmins: () =>
      db
        .select({ n: count() })
        .from(users)
        .where(and(eq(users.is_instance_admin, true), eq(users.is_active, true)))
        .get()?.n ?? 0,
    countInOrg: (orgId: string) =>
      db.select({ n: count() }).from(users).where(eq(users.organization_id, orgId)).get()?.n ?? 0,
    /** Inserts a user holding `roleId`, in one transaction. */
    insertWithRole: (values: NewUserRow, roleId: string) =>
      db.transaction((tx) => {
        tx.insert(users).values(values).run();
        tx.insert(userRoles).values({ user_id: values.id, role_id: roleId, created_at: nowIso() }).run();
      }),
    update: (id: string, set: Partial<Omit<NewUserRow, "id" | "organization_id">>) =>
      db
        .update(users)
        .set({ ...set, updated_at: nowIso() })
        .where(eq(users.id, id))
        .returning()
        .get(),
    /** Replaces every role of the user with `roleId`. */
    replaceRoles: (userId: string, roleId: string) =>
      db.transaction((tx) => {
        tx.delete(userRoles).where(eq(userRoles.user_id, userId)).run();
        tx.insert(userRoles).values({ user_id: userId, role_id: roleId, created_at: nowIso() }).run();
      }),
  };
}

export type UsersRepo = ReturnType<typeof createUsersRepo>;

/** A user row and the union of their roles' permissions, as of the last change to the database. */
export interface AuthState {
  readonly user: Readonly<UserRow>;
  readonly permissions: readonly string[];
}

/** Users whose authentication state is kept between changes; past it the cache starts over. */
const AUTH_CACHE_MAX = 1024;

/** The union of a user's role permissions. */
export function permissionsOf(rolesOfUser: { permissions: string[] }[]): string[] {
  return [...new Set(rolesOfUser.flatMap((r) => r.permissions))];
}

/**
 * The instant (ms) before which the user's tokens no longer count: the later
 * of their last password change and their last "end all sessions".
 */
export function sessionsCutoffMs(user: {
  password_changed_at: string | null;
  sessions_revoked_at: string | null;
}): number {
  const at = (v: string | null) => (v ? Date.parse(v) : 0);
  return Math.max(at(user.password_changed_at), at(user.sessions_revoked_at));
}
