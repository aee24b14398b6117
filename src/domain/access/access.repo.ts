import type { Db } from "../../db/client.ts";

export interface AccessRootRow {
  folder_id: string;
  home_user_id: string | null;
}
export interface GrantRow {
  folder_id: string;
  subject_type: "user" | "group" | "everyone";
  subject_id: string;
  level: number;
}

/** The SQL of folder grants (migration 0007): access roots, their grants, and files.acl_id upkeep. */
export function createAccessRepo(db: Db) {
  const c = db.$client;
  const rootsStmt = c.prepare<[string], AccessRootRow>(
    "SELECT folder_id, home_user_id FROM access_lists WHERE organization_id = ?",
  );
  const grantsStmt = c.prepare<[string], GrantRow>(
    "SELECT folder_id, subject_type, subject_id, level FROM folder_grants WHERE organization_id = ?",
  );
  const groupsStmt = c.prepare<[string], { group_id: string }>(
    "SELECT group_id FROM group_members WHERE user_id = ?",
  );
  const upsertRoot = c.prepare<[string, string, string | null, string]>(
    `INSERT INTO access_lists (organization_id, folder_id, home_user_id, updated_at) VALUES (?, ?, ?, ?)
     ON CONFLICT (organization_id, folder_id) DO UPDATE SET home_user_id = excluded.home_user_id, updated_at = excluded.updated_at`,
  );
  const clearGrants = c.prepare<[string, string]>(
    "DELETE FROM folder_grants WHERE organization_id = ? AND folder_id = ?",
  );
  const insertGrant = c.prepare<[string, string, string, string, number, string]>(
    `INSERT INTO folder_grants (organization_id, folder_id, subject_type, subject_id, level, created_at)
     VALUES (?, ?, ?, ?, ?, ?)`,
  );
  const dropRoot = c.prepare<[string, string]>(
    "DELETE FROM access_lists WHERE organization_id = ? AND folder_id = ?",
  );
  // Whether the folder ? lies in the subtree of ? (itself included), walking up from it.
  const withinStmt = c.prepare<[string, string], { x: number }>(`
    WITH RECURSIVE up(id) AS (
      SELECT ?
      UNION ALL
      SELECT f.parent_id FROM files f JOIN up ON f.id = up.id WHERE f.parent_id IS NOT NULL
    ) SELECT 1 AS x FROM up WHERE id = ? LIMIT 1`);
  const setHomeStmt = c.prepare<[string | null, string, string]>(
    "UPDATE access_lists SET home_user_id = ? WHERE organization_id = ? AND folder_id = ?",
  );
  const homeStmt = c.prepare<[string, string], { id: string }>(
    "SELECT id FROM files WHERE organization_id = ? AND home_of = ?",
  );
  const subjectsStmt = c.prepare<[string, string], { id: string; name: string; kind: "user" | "group" }>(
    `SELECT id, username AS name, 'user' AS kind FROM users WHERE organization_id = ?
     UNION ALL SELECT id, name, 'group' AS kind FROM groups WHERE organization_id = ?`,
  );

  return {
    roots: (orgId: string) => rootsStmt.all(orgId),
    grants: (orgId: string) => grantsStmt.all(orgId),
    groupsOf: (userId: string) => groupsStmt.all(userId).map((r) => r.group_id),
    /** Gives `folderId` ("" = the top) a list of its own, replacing its grants. */
    setList(
      orgId: string,
      folderId: string,
      homeUserId: string | null,
      grants: readonly { subject_type: string; subject_id: string; level: number }[],
      at: string,
    ): void {
      upsertRoot.run(orgId, folderId, homeUserId, at);
      clearGrants.run(orgId, folderId);
      for (const g of grants) insertGrant.run(orgId, folderId, g.subject_type, g.subject_id, g.level, at);
    },
    dropList: (orgId: string, folderId: string) => dropRoot.run(orgId, folderId).changes > 0,
    /** Access roots in `rootId`'s subtree now lie in `homeUserId`'s personal folder (or none). */
    rehome(orgId: string, rootId: string, homeUserId: string | null): number {
      // An organization has few access roots: each is checked by walking up from it (the
      // subtree below `rootId` may hold 100k rows).
      let n = 0;
      for (const { folder_id } of rootsStmt.all(orgId)) {
        if (folder_id !== "" && withinStmt.get(folder_id, rootId))
          n += setHomeStmt.run(homeUserId, orgId, folder_id).changes;
      }
      return n;
    },
    homeOf: (orgId: string, userId: string) => homeStmt.get(orgId, userId)?.id,
    /** Users and groups of the organization, to name grant subjects. */
    subjects: (orgId: string) => subjectsStmt.all(orgId, orgId),
  };
}

export type AccessRepo = ReturnType<typeof createAccessRepo>;
