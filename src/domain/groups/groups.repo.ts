import { and, asc, count, eq, sql } from "drizzle-orm";
import type { Db } from "../../db/client.ts";
import { groupMembers, groups, users } from "../../db/schema.ts";
import { nowIso } from "../../platform/ids.ts";

export type GroupRow = typeof groups.$inferSelect & { member_count: number };

/** Queries on groups and their members; every one scoped to an organization. */
export function createGroupsRepo(db: Db) {
  const inOrg = (orgId: string, id: string) => and(eq(groups.organization_id, orgId), eq(groups.id, id));
  const withCount = () =>
    db
      .select({
        id: groups.id,
        organization_id: groups.organization_id,
        name: groups.name,
        description: groups.description,
        created_at: groups.created_at,
        updated_at: groups.updated_at,
        member_count: db.$count(groupMembers, eq(groupMembers.group_id, groups.id)),
      })
      .from(groups);
  return {
    list: (orgId: string, limit: number, offset: number): GroupRow[] =>
      withCount()
        .where(eq(groups.organization_id, orgId))
        .orderBy(asc(sql`${groups.name} COLLATE NOCASE`))
        .limit(limit)
        .offset(offset)
        .all(),
    count: (orgId: string) =>
      db.select({ n: count() }).from(groups).where(eq(groups.organization_id, orgId)).get()?.n ?? 0,
    byId: (orgId: string, id: string): GroupRow | undefined => withCount().where(inOrg(orgId, id)).get(),
    byName: (orgId: string, name: string) =>
      db
        .select({ id: groups.id })
        .from(groups)
        .where(and(eq(groups.organization_id, orgId), sql`${groups.name} = ${name} COLLATE NOCASE`))
        .get(),
    insert: (row: typeof groups.$inferInsert) => db.insert(groups).values(row).run(),
    update: (orgId: string, id: string, set: { name?: string; description?: string }) =>
      db
        .update(groups)
        .set({ ...set, updated_at: nowIso() })
        .where(inOrg(orgId, id))
        .run(),
    delete: (orgId: string, id: string) => db.delete(groups).where(inOrg(orgId, id)).run().changes,
    members: (groupId: string) =>
      db
        .select({
          user_id: users.id,
          username: users.username,
          email: users.email,
          display_name: users.display_name,
          added_at: groupMembers.created_at,
        })
        .from(groupMembers)
        .innerJoin(users, eq(users.id, groupMembers.user_id))
        .where(eq(groupMembers.group_id, groupId))
        .orderBy(asc(sql`${users.username} COLLATE NOCASE`))
        .all(),
    /** Adds a member; true when added, false when already a member. */
    addMember: (groupId: string, userId: string) =>
      db
        .insert(groupMembers)
        .values({ group_id: groupId, user_id: userId, created_at: nowIso() })
        .onConflictDoNothing()
        .run().changes > 0,
    removeMember: (groupId: string, userId: string) =>
      db
        .delete(groupMembers)
        .where(and(eq(groupMembers.group_id, groupId), eq(groupMembers.user_id, userId)))
        .run().changes,
  };
}

export type GroupsRepo = ReturnType<typeof createGroupsRepo>;
