import { conflictOnUnique } from "../../db/unique.ts";
import { AppError, notFound } from "../../errors.ts";
import { newId, nowIso } from "../../platform/ids.ts";
import { type Actor, requirePermission } from "../actor.ts";
import { type Page, PageQuery } from "../page.schemas.ts";
import { parseInput } from "../parse-input.ts";
import type { UsersRepo } from "../users/users.repo.ts";
import type { GroupRow, GroupsRepo } from "./groups.repo.ts";
import {
  AddMemberInput,
  type CreateGroup,
  CreateGroupInput,
  type Group,
  type GroupMember,
  type UpdateGroup,
  UpdateGroupInput,
} from "./groups.schemas.ts";

/** Reading groups needs this. */
export const GROUP_READ = "org:read";
/** Creating, changing and deleting groups and their members needs this (Admin holds it). */
export const GROUP_MANAGE = "group:manage";

const toGroup = ({ organization_id: _, ...g }: GroupRow): Group => g;

/**
 * Groups of users within an organization. Members come only from the same
 * organization; another organization's group or user answers 404.
 */
export function createGroupsService(deps: { groups: GroupsRepo; users: UsersRepo }) {
  const { groups, users } = deps;

  function mustGet(actor: Actor, id: string): GroupRow {
    const g = groups.byId(actor.organizationId, id);
    if (!g) throw notFound("group");
    return g;
  }

  function assertNameFree(actor: Actor, name: string, exceptId?: string): void {
    const other = groups.byName(actor.organizationId, name);
    if (other && other.id !== exceptId) throw new AppError("CONFLICT", "group name already exists");
  }

  function create(actor: Actor, input: CreateGroup): Group {
    requirePermission(actor, GROUP_MANAGE);
    const data = parseInput(CreateGroupInput, input);
    assertNameFree(actor, data.name);
    const now = nowIso();
    const id = newId();
    conflictOnUnique("group name already exists", () =>
      groups.insert({ id, organization_id: actor.organizationId, ...data, created_at: now, updated_at: now }),
    );
    return toGroup(mustGet(actor, id));
  }

  function update(actor: Actor, id: string, input: UpdateGroup): Group {
    requirePermission(actor, GROUP_MANAGE);
    const data = parseInput(UpdateGroupInput, input);
    mustGet(actor, id);
    if (data.name !== undefined) assertNameFree(actor, data.name, id);
    conflictOnUnique("group name already exists", () => groups.update(actor.organizationId, id, data));
    return toGroup(mustGet(actor, id));
  }

  function list(actor: Actor, page: Partial<Page>) {
    requirePermission(actor, GROUP_READ);
    const { limit, offset } = parseInput(PageQuery, page);
    return {
      groups: groups.list(actor.organizationId, limit, offset).map(toGroup),
      total: groups.count(actor.organizationId),
      limit,
      offset,
    };
  }

  /** Adds a user of the same organization; adding a member twice is a no-op. */
  function addMember(actor: Actor, id: string, input: { user_id: string }): GroupMember {
    requirePermission(actor, GROUP_MANAGE);
    const { user_id } = parseInput(AddMemberInput, input);
    const g = mustGet(actor, id);
    if (!users.byIdInOrg(actor.organizationId, user_id)) throw notFound("user");
    groups.addMember(g.id, user_id);
    return groups.members(g.id).find((m) => m.user_id === user_id)!;
  }

  function removeMember(actor: Actor, id: string, userId: string): void {
    requirePermission(actor, GROUP_MANAGE);
    const g = mustGet(actor, id);
    if (groups.removeMember(g.id, userId) === 0) throw notFound("group member");
  }

  return {
    create,
    list,
    get: (actor: Actor, id: string): Group => {
      requirePermission(actor, GROUP_READ);
      return toGroup(mustGet(actor, id));
    },
    update,
    remove: (actor: Actor, id: string): void => {
      requirePermission(actor, GROUP_MANAGE);
      if (groups.delete(actor.organizationId, mustGet(actor, id).id) === 0) throw notFound("group");
    },
    members: (actor: Actor, id: string): { members: GroupMember[]; total: number } => {
      requirePermission(actor, GROUP_READ);
      const members = groups.members(mustGet(actor, id).id);
      return { members, total: members.length };
    },
    addMember,
    removeMember,
  };
}

export type GroupsService = ReturnType<typeof createGroupsService>;
