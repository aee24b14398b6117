import { z } from "@hono/zod-openapi";
import { BodyId } from "../ids.schemas.ts";
import { Label } from "../users/users.schemas.ts";

const Permission = z.string().min(1).max(65).openapi({ example: "file:read" });
const RoleName = Label(64);

/** A role as clients see it. */
export const RoleSchema = z
  .object({
    id: z.string(),
    name: z.string(),
    description: z.string(),
    permissions: z.array(z.string()),
    is_builtin: z.boolean(),
    created_at: z.string(),
    updated_at: z.string(),
  })
  .openapi("Role");

export const RoleListSchema = z.object({ roles: z.array(RoleSchema) }).openapi("RoleList");

export const CreateRoleInput = z
  .object({
    name: RoleName,
    description: z.string().max(500).default(""),
    permissions: z.array(Permission).max(100),
  })
  .openapi("CreateRoleRequest");

export const UpdateRoleInput = z
  .object({
    name: RoleName.optional(),
    description: z.string().max(500).optional(),
    permissions: z.array(Permission).max(100).optional(),
  })
  .openapi("UpdateRoleRequest");

/** Body of assign and unassign. */
export const RoleAssignmentInput = z.object({ user_id: BodyId }).openapi("RoleAssignmentRequest");

export type Role = z.infer<typeof RoleSchema>;
export type CreateRole = z.infer<typeof CreateRoleInput>;
export type UpdateRole = z.infer<typeof UpdateRoleInput>;
