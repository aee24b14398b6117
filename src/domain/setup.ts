import { randomBytes } from "node:crypto";
import { join } from "node:path";
import type { Config } from "../config/schema.ts";
import type { Db } from "../db/client.ts";
import { organizations, roles, userRoles, users } from "../db/schema.ts";
import type { Logger } from "../log.ts";
import { newId, nowIso } from "../platform/ids.ts";
import { writePrivateFile } from "../platform/local-files.ts";
import type { PasswordHasher } from "../platform/passwords.ts";
import { ADMIN_PERMISSIONS, MEMBER_PERMISSIONS } from "./permissions.ts";

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

/**
 * First start: on an empty database, creates the `Default` organization, its
 * built-in roles and the `admin` user. The password is
 * `auth.initial_admin_password`, or a random one printed once and written to
 * DATA_DIR/initial-admin-password (0600). Never a fixed default.
 */
export async function bootstrap(db: Db, cfg: Config, passwords: PasswordHasher, log: Logger): Promise<void> {
  const existing = db.select({ id: organizations.id }).from(organizations).limit(1).get();
  if (existing) return;
  const configured = cfg.auth.initial_admin_password;
  const password = configured ?? randomBytes(18).toString("base64url");
  const hash = await passwords.hash(password);
  const now = nowIso();
  const orgId = newId();
  const userId = newId();
  const file = join(cfg.storage.data_dir, "initial-admin-password");
  // Written before the admin exists: a crash in between must not leave an admin nobody can sign in as.
  if (configured === undefined) writePrivateFile(file, `${password}\n`);
  db.transaction((tx) => {
    tx.insert(organizations).values({ id: orgId, name: "Default", created_at: now, updated_at: now }).run();
    const { admin } = createBuiltinRoles(tx as unknown as Db, orgId);
    tx.insert(users)
      .values({
        id: userId,
        organization_id: orgId,
        username: "admin",
        email: "admin@localhost.localdomain",
        display_name: "Administrator",
        password_hash: hash,
        is_instance_admin: true,
        must_change_password: configured === undefined,
        created_at: now,
        updated_at: now,
      })
      .run();
    tx.insert(userRoles).values({ user_id: userId, role_id: admin, created_at: now }).run();
  });
  if (configured === undefined) {
    // Printed once, on purpose: the operator needs it to sign in the first time.
    log.warn(
      { username: "admin", initial_password: password, file },
      "created the first administrator; sign in and change this password",
    );
  } else {
    log.info({ username: "admin" }, "created the first administrator with auth.initial_admin_password");
  }
}
