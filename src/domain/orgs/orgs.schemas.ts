import { z } from "@hono/zod-openapi";
import { Email, Label, Password, Username } from "../users/users.schemas.ts";

export const OrgName = Label(100);

/** An organization as clients see it. */
export const OrganizationSchema = z
  .object({
    id: z.string(),
    name: z.string(),
    user_count: z.number().int(),
    created_at: z.string(),
    updated_at: z.string(),
  })
  .openapi("Organization");

export const OrganizationListSchema = z
  .object({ organizations: z.array(OrganizationSchema), total: z.number().int() })
  .openapi("OrganizationList");

export const CreateOrganizationInput = z
  .object({
    name: OrgName,
    admin: z
      .object({ username: Username, email: Email, password: Password })
      .optional()
      .openapi({ description: "Optional first user of the organization, given its Admin role" }),
  })
  .openapi("CreateOrganizationRequest");

export const UpdateOrganizationInput = z.object({ name: OrgName }).openapi("UpdateOrganizationRequest");

export type Organization = z.infer<typeof OrganizationSchema>;
export type CreateOrganization = z.infer<typeof CreateOrganizationInput>;
