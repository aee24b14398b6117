import type { Db } from "../db/client.ts";
import { organizations, roles, userRoles, users } from "../db/schema.ts";
import { newId, nowIso } from "../platform/ids.ts";
import { ADMIN_PERMISSIONS, MEMBER_PERMISSIONS } from "./permissions.ts";

/** The SQL of the first start and of a new organization's built-in roles. */

/** Creates the built-in Admin and Member roles of an organization; returns their ids. */
export function createBuiltinRoles(db: Db, organizationId: string): { admin: string; member: string } {
  const now = nowIso();
  const admin = newId();
  const member = newId();
  db.insert(roles)
    .values([
      {
        id: admin,
        organization_id: organizationId,
        name: "Admin",
        description: "Full control of the organization",
        permissions: ADMIN_PERMISSIONS,
        is_builtin: true,
        created_at: now,
        updated_at: now,
      },
      {
        id: member,
        organization_id: organizationId,
        name: "Member",
        description: "Uses files, reads the organization, manages own API keys",
        permissions: MEMBER_PERMISSIONS,
        is_builtin: true,
        created_at: now,
        updated_at: now,
      },
    ])
    .run();
  return { admin, member };
}

/** True once any organization exists (first start has run). */
export function anyOrganization(db: Db): boolean {
  return db.select({ id: organizations.id }).from(organizations).limit(1).get() !== undefined;
}

/** The `Default` organization, its built-in roles and its `admin` (an instance admin), in one transaction. */
export function insertFirstAdmin(
  db: Db,
  a: { orgId: string; userId: string; passwordHash: string; mustChangePassword: boolean; now: string },
): void {
  db.transaction((tx) => {
    tx.insert(organizations)
      .values({ id: a.orgId, name: "Default", created_at: a.now, updated_at: a.now })
      .run();
    const { admin } = createBuiltinRoles(tx as unknown as Db, a.orgId);
    tx.insert(users)
      .values({
        id: a.userId,
        organization_id: a.orgId,
        username: "admin",
        email: "admin@localhost.localdomain",
        display_name: "Administrator",
        password_hash: a.passwordHash,
        is_instance_admin: true,
        must_change_password: a.mustChangePassword,
        created_at: a.now,
        updated_at: a.now,
      })
      .run();
    tx.insert(userRoles).values({ user_id: a.userId, role_id: admin, created_at: a.now }).run();
  });
}
