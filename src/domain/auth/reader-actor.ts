import type { Actor } from "../actor.ts";
import { hasPermission } from "../permissions.ts";
import { permissionsOf, type UserRow, type UsersRepo } from "../users/users.repo.ts";

/**
 * A user as a reader only, as they are now: for credentials that stand for a
 * user's reading without being the user (stream tokens, share links). It
 * holds `file:read` alone, with the organization admin's override over
 * shared folders when the user has it; folder grants apply on every request.
 * Undefined when the user is inactive or can no longer read files.
 */
export function readerActor(user: UserRow | undefined, users: Pick<UsersRepo, "rolesOf">): Actor | undefined {
  if (!user?.is_active) return undefined;
  const permissions = permissionsOf(users.rolesOf(user.id));
  if (!hasPermission(permissions, "file:read")) return undefined;
  return {
    userId: user.id,
    username: user.username,
    organizationId: user.organization_id,
    permissions: ["file:read"],
    isInstanceAdmin: false,
    via: "jwt",
    sharedAdmin: hasPermission(permissions, "org:admin"),
  };
}
