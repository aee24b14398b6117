import { conflictOnUnique } from "../../db/unique.ts";
import { AppError, notFound } from "../../errors.ts";
import { newId, nowIso } from "../../platform/ids.ts";
import { type Actor, requirePermission } from "../actor.ts";
import { parseInput } from "../parse-input.ts";
import { assertPermissions, isSubset } from "../permissions.ts";
import { assertMayActOn } from "../users/delegation.ts";
import { permissionsOf, type UsersRepo } from "../users/users.repo.ts";
import type { RoleRow, RolesRepo } from "./roles.repo.ts";
import {
  type CreateRole,
  CreateRoleInput,
  type Role,
  type UpdateRole,
  UpdateRoleInput,
} from "./roles.schemas.ts";

/** Creating, changing and assigning roles needs this (Admin holds it through `*:*`). */
export const ROLE_MANAGE = "role:manage";

const ADMIN_ROLE = "Admin";

/** A role row as clients see it. */
export function toRole(r: RoleRow): Role {
  return {
    id: r.id,
    name: r.name,
    description: r.description,
    permissions: r.permissions,
    is_builtin: r.is_builtin,
    created_at: r.created_at,
    updated_at: r.updated_at,
  };
}

/**
 * Roles of an organization: any member may read them; `role:manage` creates,
 * changes, deletes, assigns and unassigns. Nobody can grant permissions they
 * do not hold themselves, built-in roles keep their names (and Admin its
 * permissions), and the last active Admin cannot be unassigned.
 */
export function createRolesService(deps: { roles: RolesRepo; users: UsersRepo }) {
  const { roles, users } = deps;

  function mustGet(actor: Actor, id: string): RoleRow {
    const role = roles.byId(actor.organizationId, id);
    if (!role) throw notFound("role");
    return role;
  }

  function checkGrantable(actor: Actor, permissions: readonly string[]): void {
    if (!isSubset(permissions, actor.permissions)) {
      throw new AppError("PERMISSION_DENIED", "cannot grant permissions you do not hold");
    }
  }

  /**
   * Changing or deleting a role acts on everyone holding it: the delegation
   * rule must allow acting on each (a role:manage delegate must not strip
   * a wider Admin's role, nor anyone the instance admin's).
   */
  function assertMayActOnHolders(actor: Actor, role: RoleRow): void {
    if (actor.isInstanceAdmin && isSubset(["*:*"], actor.permissions)) return;
    for (const holder of roles.holders(role.id)) {
      assertMayActOn(actor, holder, permissionsOf(users.rolesOf(holder.id)));
    }
  }

  function create(actor: Actor, input: CreateRole): Role {
    requirePermission(actor, ROLE_MANAGE);
    const data = parseInput(CreateRoleInput, input);
    const permissions = assertPermissions(data.permissions);
    checkGrantable(actor, permissions);
    if (roles.byName(actor.organizationId, data.name))
      throw new AppError("CONFLICT", "role name already exists");
    const now = nowIso();
    const row = conflictOnUnique("role name already exists", () =>
      roles.insert({
        id: newId(),
        organization_id: actor.organizationId,
        name: data.name,
        description: data.description,
        permissions,
        is_builtin: false,
        created_at: now,
        updated_at: now,
      }),
    );
    return toRole(row);
  }

  function update(actor: Actor, id: string, input: UpdateRole): Role {
    requirePermission(actor, ROLE_MANAGE);
    const data = parseInput(UpdateRoleInput, input);
    const role = mustGet(actor, id);
    const renamed = data.name !== undefined && data.name !== role.name;
    if (role.is_builtin && renamed)
      throw new AppError("PERMISSION_DENIED", "built-in roles cannot be renamed");
    const permissions = data.permissions && assertPermissions(data.permissions);
    if (permissions) {
      if (role.is_builtin && role.name === ADMIN_ROLE) {
        throw new AppError("PERMISSION_DENIED", "the Admin role's permissions cannot be changed");
      }
      checkGrantable(actor, permissions);
      assertMayActOnHolders(actor, role);
    }
    if (renamed && roles.byName(actor.organizationId, data.name!)) {
      throw new AppError("CONFLICT", "role name already exists");
    }
    const set = {
      ...(renamed ? { name: data.name } : {}),
      ...(data.description !== undefined ? { description: data.description } : {}),
      ...(permissions ? { permissions } : {}),
    };
    const row = conflictOnUnique("role name already exists", () =>
      roles.update(actor.organizationId, id, set),
    );
    return toRole(row ?? role);
  }

  function remove(actor: Actor, id: string): void {
    requirePermission(actor, ROLE_MANAGE);
    const role = mustGet(actor, id);
    if (role.is_builtin) throw new AppError("PERMISSION_DENIED", "built-in roles cannot be deleted");
    assertMayActOnHolders(actor, role);
    roles.delete(actor.organizationId, id);
  }

  function assignment(actor: Actor, id: string, userId: string) {
    requirePermission(actor, ROLE_MANAGE);
    const role = mustGet(actor, id);
    const user = users.byIdInOrg(actor.organizationId, userId);
    if (!user) throw notFound("user");
    assertMayActOn(actor, user, permissionsOf(users.rolesOf(user.id)));
    return { role, user };
  }

  /** Gives a user of the organization the role; the user's next token carries it. */
  function assign(actor: Actor, id: string, userId: string): void {
    const { role, user } = assignment(actor, id, userId);
    checkGrantable(actor, role.permissions);
    roles.assign(user.id, role.id);
  }

  /** Takes the role from the user; refuses to leave the organization without an active Admin. */
  function unassign(actor: Actor, id: string, userId: string): void {
    const { role, user } = assignment(actor, id, userId);
    if (!roles.holds(user.id, role.id)) return;
    if (role.is_builtin && role.name === ADMIN_ROLE) assertNotLastAdmin(actor, user);
    roles.unassign(user.id, role.id);
  }

  /**
   * 409 when `user` is the organization's last active holder of the built-in
   * Admin role: called before anything that would take Admin from them
   * (unassign, role replacement, deactivation), so an organization always
   * keeps someone who can manage it.
   */
  function assertNotLastAdmin(actor: Actor, user: { id: string; is_active: boolean }): void {
    const admin = roles.byName(actor.organizationId, ADMIN_ROLE);
    if (!admin?.is_builtin || !user.is_active || !roles.holds(user.id, admin.id)) return;
    if (roles.activeHolders(admin.id) <= 1) {
      throw new AppError("CONFLICT", "cannot remove the organization's last active Admin");
    }
  }

  /** Resolves a role given by id or name within the actor's organization (404 when unknown). */
  function resolve(actor: Actor, ref: string): RoleRow {
    const role = roles.byId(actor.organizationId, ref) ?? roles.byName(actor.organizationId, ref);
    if (!role) throw notFound("role");
    return role;
  }

  return {
    list: (actor: Actor): Role[] => roles.list(actor.organizationId).map(toRole),
    get: (actor: Actor, id: string): Role => toRole(mustGet(actor, id)),
    create,
    update,
    remove,
    assign,
    unassign,
    resolve,
    checkGrantable,
    assertNotLastAdmin,
  };
}

export type RolesService = ReturnType<typeof createRolesService>;
