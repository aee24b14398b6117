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
import { body, errorResponses, type Guards, json, newRouter, SECURED, SuccessSchema } from "../router.ts";

/** Builds a route with the tag and security of every role route. */
function roleRoute<const R extends Parameters<typeof createRoute>[0]>(r: R) {
  return createRoute({ tags: ["Roles"], security: SECURED, ...r });
}

const assignment = (verb: "assign" | "unassign") =>
  roleRoute({
    method: "post",
    path: `/roles/{id}/${verb}`,
    summary: verb === "assign" ? "Give the role to a user (admin)" : "Take the role from a user (admin)",
    description: "The user's next access token carries the change.",
    request: { params: IdParam, ...body(RoleAssignmentInput) },
    responses: {
      200: { description: "Done", ...json(SuccessSchema) },
      ...errorResponses(400, 401, 403, 404, 409, 429),
    },
  });

const list = roleRoute({
  method: "get",
  path: "/roles",
  summary: "Roles of the caller's organization",
  responses: { 200: { description: "Roles", ...json(RoleListSchema) }, ...errorResponses(401, 429) },
});

const get = roleRoute({
  method: "get",
  path: "/roles/{id}",
  summary: "One role",
  request: { params: IdParam },
  responses: { 200: { description: "Role", ...json(RoleSchema) }, ...errorResponses(401, 404, 429) },
});

const create = roleRoute({
  method: "post",
  path: "/roles",
  summary: "Create a custom role (admin; only permissions the caller holds)",
  request: body(CreateRoleInput),
  responses: {
    201: { description: "Created", ...json(RoleSchema) },
    ...errorResponses(400, 401, 403, 409, 429),
  },
});

const update = roleRoute({
  method: "put",
  path: "/roles/{id}",
  summary: "Change a role (admin; built-in roles keep their names, Admin its permissions)",
  request: { params: IdParam, ...body(UpdateRoleInput) },
  responses: {
    200: { description: "Role", ...json(RoleSchema) },
    ...errorResponses(400, 401, 403, 404, 409, 429),
  },
});

const remove = roleRoute({
  method: "delete",
  path: "/roles/{id}",
  summary: "Delete a custom role (admin; built-in roles cannot be deleted)",
  request: { params: IdParam },
  responses: {
    200: { description: "Deleted", ...json(SuccessSchema) },
    ...errorResponses(401, 403, 404, 429),
  },
});

const assign = assignment("assign");

const unassign = assignment("unassign");

/**
 * Roles: list and get for members, create/update/delete/assign/unassign for
 * admins (`role:manage`, checked by the service).
 */
export function rolesRoutes(ctx: AppContext, guards: Guards): Router {
  const r = newRouter();
  const roles = ctx.services.roles;
  const auth = guards.auth();
  const done = { success: true };
  r.openapi({ ...list, middleware: [auth] }, (c) => c.json({ roles: roles.list(actorOf(c)) }, 200));
  r.openapi({ ...get, middleware: [auth] }, (c) =>
    c.json(roles.get(actorOf(c), c.req.valid("param").id), 200),
  );
  r.openapi({ ...create, middleware: [auth] }, (c) =>
    c.json(roles.create(actorOf(c), c.req.valid("json")), 201),
  );
  r.openapi({ ...update, middleware: [auth] }, (c) =>
    c.json(roles.update(actorOf(c), c.req.valid("param").id, c.req.valid("json")), 200),
  );
  r.openapi({ ...remove, middleware: [auth] }, (c) => {
    roles.remove(actorOf(c), c.req.valid("param").id);
    return c.json(done, 200);
  });
  r.openapi({ ...assign, middleware: [auth] }, (c) => {
    roles.assign(actorOf(c), c.req.valid("param").id, c.req.valid("json").user_id);
    return c.json(done, 200);
  });
  r.openapi({ ...unassign, middleware: [auth] }, (c) => {
    roles.unassign(actorOf(c), c.req.valid("param").id, c.req.valid("json").user_id);
    return c.json(done, 200);
  });
  return r;
}
