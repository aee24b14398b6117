import { AppError, notFound } from "../../errors.ts";
import { type Actor, requirePermission } from "../actor.ts";
import { parseInput } from "../parse-input.ts";
import type { UsersService } from "../users/users.service.ts";
import { createOrganization, renameOrganization } from "./org-names.ts";
import type { OrgRow, OrgsRepo } from "./orgs.repo.ts";
import {
  type CreateOrganization,
  CreateOrganizationInput,
  type Organization,
  UpdateOrganizationInput,
} from "./orgs.schemas.ts";

const toOrg = (o: OrgRow): Organization => ({ ...o });

/**
 * Organizations. Members with `org:read` see their own; `org:admin` renames
 * it. The instance administrator (the first admin) lists, creates and
 * deletes any, except its own (which is also what keeps the last one alive).
 * Another organization answers 404 to everyone else.
 */
export function createOrgsService(deps: { orgs: OrgsRepo; users: UsersService }) {
  const { orgs } = deps;
  const beforeDelete: ((orgActor: Actor) => Promise<void> | void)[] = [];

  /** The organization if the actor may see it with `permission`, else 404 (or 403 for its own). */
  function visible(actor: Actor, id: string, permission: string): OrgRow {
    const own = id === actor.organizationId;
    if (!own && !actor.isInstanceAdmin) throw notFound("organization");
    if (own && !actor.isInstanceAdmin) requirePermission(actor, permission);
    const org = orgs.byId(id);
    if (!org) throw notFound("organization");
    return org;
  }

  function list(actor: Actor): { organizations: Organization[]; total: number } {
    if (actor.isInstanceAdmin) {
      const all = orgs.all().map(toOrg);
      return { organizations: all, total: all.length };
    }
    requirePermission(actor, "org:read");
    const own = orgs.byId(actor.organizationId);
    return { organizations: own ? [toOrg(own)] : [], total: own ? 1 : 0 };
  }

  /** Instance admin only: a new organization with built-in roles and, optionally, its first Admin. */
  async function create(actor: Actor, input: CreateOrganization): Promise<Organization> {
    if (!actor.isInstanceAdmin) throw new AppError("PERMISSION_DENIED", "only the instance administrator");
    const data = parseInput(CreateOrganizationInput, input);
    if (data.admin) deps.users.assertAvailable(data.admin);
    const created = createOrganization(orgs, data.name);
    if (data.admin) {
      try {
        await deps.users.provision(created.id, data.admin, created.admin, actor);
      } catch (err) {
        orgs.delete(created.id); // no half-made organization without its admin
        throw err;
      }
    }
    return toOrg(orgs.byId(created.id)!);
  }

  function update(actor: Actor, id: string, input: { name: string }): Organization {
    const { name } = parseInput(UpdateOrganizationInput, input);
    visible(actor, id, "org:admin");
    renameOrganization(orgs, id, name);
    return toOrg(orgs.byId(id)!);
  }

  async function remove(actor: Actor, id: string): Promise<void> {
    if (!actor.isInstanceAdmin) {
      if (id !== actor.organizationId) throw notFound("organization");
      throw new AppError("PERMISSION_DENIED", "only the instance administrator deletes organizations");
    }
    if (!orgs.byId(id)) throw notFound("organization");
    if (id === actor.organizationId) throw new AppError("CONFLICT", "cannot delete your own organization");
    if (orgs.count() <= 1) throw new AppError("CONFLICT", "cannot delete the last organization");
    // The instance admin acting inside the doomed organization, so other areas clean up with their own rules.
    const { apiKeyId: _, ...self } = actor;
    const orgActor: Actor = { ...self, organizationId: id, permissions: ["*:*"] };
    for (const hook of beforeDelete) await hook(orgActor);
    orgs.delete(id);
  }

  return {
    list,
    get: (actor: Actor, id: string): Organization => toOrg(visible(actor, id, "org:read")),
    create,
    update,
    remove,
    /**
     * Registers work to do before an organization's rows are deleted (its
     * rows cascade, but live resources such as folder watchers need stopping).
     */
    onDelete: (hook: (orgActor: Actor) => Promise<void> | void) => {
      beforeDelete.push(hook);
    },
  };
}

export type OrgsService = ReturnType<typeof createOrgsService>;
