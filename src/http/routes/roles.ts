import { createRoute } from "@hono/zod-openapi";
import type { AppContext } from "../../context.ts";
import { IdParam } from "../../domain/ids.schemas.ts";
import {
  CreateRoleInput,
  RoleAssignmentInput,
  RoleListSchema,
  RoleSchema,
  UpdateRoleInput,
} from "../../domain/roles/roles.schemas.ts";
import { actorOf, type Router } from "../env.ts";
import { body, errorResponses, type Guards, json, newRouter, ok, SECURED, SuccessSchema } from "../router.ts";

/** The role routes; reads need only authentication, changes `role:manage` (checked by the service). */
function roleRoutes(guard: ReturnType<Guards["auth"]>) {
  const common = { tags: ["Roles"], security: SECURED, middleware: guard };
  const assignment = (verb: "assign" | "unassign") =>
    createRoute({
      ...common,
      method: "post",
      path: `/roles/{id}/${verb}`,
      summary: verb === "assign" ? "Give the role to a user (admin)" : "Take the role from a user (admin)",
      description: "The user's next access token carries the change.",
      request: { params: IdParam, ...body(RoleAssignmentInput) },
      responses: { ...ok("Done", SuccessSchema), ...errorResponses(400, 401, 403, 404, 409, 429) },
    });
  return {
    list: createRoute({
      ...common,
      method: "get",
      path: "/roles",
      summary: "Roles of the caller's organization",
      responses: { ...ok("Roles", RoleListSchema), ...errorResponses(401, 429) },
    }),
    get: createRoute({
      ...common,
      method: "get",
      path: "/roles/{id}",
      summary: "One role",
      request: { params: IdParam },
      responses: { ...ok("Role", RoleSchema), ...errorResponses(401, 404, 429) },
    }),
    create: createRoute({
      ...common,
      method: "post",
      path: "/roles",
      summary: "Create a custom role (admin; only permissions the caller holds)",
      request: body(CreateRoleInput),
      responses: {
        201: { description: "Created", ...json(RoleSchema) },
        ...errorResponses(400, 401, 403, 409, 429),
      },
    }),
    update: createRoute({
      ...common,
      method: "put",
      path: "/roles/{id}",
      summary: "Change a role (admin; built-in roles keep their names, Admin its permissions)",
      request: { params: IdParam, ...body(UpdateRoleInput) },
      responses: { ...ok("Role", RoleSchema), ...errorResponses(400, 401, 403, 404, 409, 429) },
    }),
    remove: createRoute({
      ...common,
      method: "delete",
      path: "/roles/{id}",
      summary: "Delete a custom role (admin; built-in roles cannot be deleted)",
      request: { params: IdParam },
      responses: { ...ok("Deleted", SuccessSchema), ...errorResponses(401, 403, 404, 429) },
    }),
    assign: assignment("assign"),
    unassign: assignment("unassign"),
  };
}

/** Roles: list and get for members, create/update/delete/assign/unassign for admins. */
export function rolesRoutes(ctx: AppContext, guards: Guards): Router {
  const r = newRouter();
  const roles = ctx.services.roles;
  const rt = roleRoutes(guards.auth());
  const done = { success: true };
  r.openapi(rt.list, (c) => c.json({ roles: roles.list(actorOf(c)) }, 200));
  r.openapi(rt.get, (c) => c.json(roles.get(actorOf(c), c.req.valid("param").id), 200));
  r.openapi(rt.create, (c) => c.json(roles.create(actorOf(c), c.req.valid("json")), 201));
  r.openapi(rt.update, (c) =>
    c.json(roles.update(actorOf(c), c.req.valid("param").id, c.req.valid("json")), 200),
  );
  r.openapi(rt.remove, (c) => {
    roles.remove(actorOf(c), c.req.valid("param").id);
    return c.json(done, 200);
  });
  r.openapi(rt.assign, (c) => {
    roles.assign(actorOf(c), c.req.valid("param").id, c.req.valid("json").user_id);
    return c.json(done, 200);
  });
  r.openapi(rt.unassign, (c) => {
    roles.unassign(actorOf(c), c.req.valid("param").id, c.req.valid("json").user_id);
    return c.json(done, 200);
  });
  return r;
}
