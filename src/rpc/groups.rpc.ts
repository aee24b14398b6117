import type { ServiceImpl } from "@connectrpc/connect";
import type { AppContext } from "../context.ts";
import type { GroupService } from "../gen/attic/v1/group_pb.ts";
import { actorOf } from "./call-context.ts";
import { groupToProto, memberToProto, pageFromProto } from "./convert.ts";

/** GroupService over the same groups service as /api/v1/groups. */
export function groupsRpc(ctx: AppContext): Partial<ServiceImpl<typeof GroupService>> {
  const groups = () => ctx.services.groups;
  return {
    createGroup: (req, call) => ({
      group: groupToProto(
        groups().create(actorOf(call), {
          name: req.name,
          ...(req.description !== undefined ? { description: req.description } : {}),
        }),
      ),
    }),
    updateGroup: (req, call) => ({
      group: groupToProto(
        groups().update(actorOf(call), req.id, {
          ...(req.name !== undefined ? { name: req.name } : {}),
          ...(req.description !== undefined ? { description: req.description } : {}),
        }),
      ),
    }),
    deleteGroup: (req, call) => {
      groups().remove(actorOf(call), req.id);
      return { success: true };
    },
    getGroup: (req, call) => ({ group: groupToProto(groups().get(actorOf(call), req.id)) }),
    listGroups: (req, call) => {
      const page = groups().list(actorOf(call), pageFromProto(req));
      return { groups: page.groups.map(groupToProto), total: BigInt(page.total) };
    },
    addGroupMember: (req, call) => {
      groups().addMember(actorOf(call), req.groupId, { user_id: req.userId });
      return { success: true };
    },
    removeGroupMember: (req, call) => {
      groups().removeMember(actorOf(call), req.groupId, req.userId);
      return { success: true };
    },
    listGroupMembers: (req, call) => ({
      members: groups().members(actorOf(call), req.groupId).members.map(memberToProto),
    }),
  };
}
