import { z } from "@hono/zod-openapi";
import { BodyId } from "../ids.schemas.ts";
import { Label } from "../users/users.schemas.ts";

const GroupName = Label(100);

/** A group as clients see it. */
export const GroupSchema = z
  .object({
    id: z.string(),
    name: z.string(),
    description: z.string(),
    member_count: z.number().int(),
    created_at: z.string(),
    updated_at: z.string(),
  })
  .openapi("Group");

export const GroupListSchema = z
  .object({
    groups: z.array(GroupSchema),
    total: z.number().int(),
    limit: z.number().int(),
    offset: z.number().int(),
  })
  .openapi("GroupList");

export const CreateGroupInput = z
  .object({ name: GroupName, description: z.string().max(500).default("") })
  .openapi("CreateGroupRequest");

export const UpdateGroupInput = z
  .object({ name: GroupName.optional(), description: z.string().max(500).optional() })
  .openapi("UpdateGroupRequest");

export const AddMemberInput = z.object({ user_id: BodyId }).openapi("AddGroupMemberRequest");

export const GroupMemberSchema = z
  .object({
    user_id: z.string(),
    username: z.string(),
    email: z.string(),
    display_name: z.string().nullable(),
    added_at: z.string(),
  })
  .openapi("GroupMember");

export const GroupMemberListSchema = z
  .object({ members: z.array(GroupMemberSchema), total: z.number().int() })
  .openapi("GroupMemberList");

export type Group = z.infer<typeof GroupSchema>;
export type GroupMember = z.infer<typeof GroupMemberSchema>;
export type CreateGroup = z.input<typeof CreateGroupInput>;
export type UpdateGroup = z.infer<typeof UpdateGroupInput>;
