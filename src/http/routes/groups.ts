import { createRoute } from "@hono/zod-openapi";
import type { AppContext } from "../../context.ts";
import {
  AddMemberInput,
  CreateGroupInput,
  GroupListSchema,
  GroupMemberListSchema,
  GroupMemberSchema,
  GroupSchema,
  UpdateGroupInput,
} from "../../domain/groups/groups.schemas.ts";
import { IdParam, pathId } from "../../domain/ids.schemas.ts";
import { PageQuery } from "../../domain/page.schemas.ts";
import { actorOf, type Router } from "../env.ts";
import { body, errorResponses, type Guards, json, newRouter, SECURED, SuccessSchema } from "../router.ts";

const MemberParams = IdParam.extend({ userId: pathId("userId") });

/** Builds a route with the tag and security of every group route. */
function groupRoute<const R extends Parameters<typeof createRoute>[0]>(r: R) {
  return createRoute({ tags: ["Groups"], security: SECURED, ...r });
}

const errs = (...s: number[]) => errorResponses(401, 403, 429, ...s);

const create = groupRoute({
  method: "post",
  path: "/groups",
  summary: "Create a group (group:manage)",
  request: body(CreateGroupInput),
  responses: { 201: { description: "Created", ...json(GroupSchema) }, ...errs(400, 409) },
});

const list = groupRoute({
  method: "get",
  path: "/groups",
  summary: "Groups of the organization (org:read)",
  request: { query: PageQuery },
  responses: { 200: { description: "Groups", ...json(GroupListSchema) }, ...errs(400) },
});

const get = groupRoute({
  method: "get",
  path: "/groups/{id}",
  summary: "One group (org:read)",
  request: { params: IdParam },
  responses: { 200: { description: "Group", ...json(GroupSchema) }, ...errs(404) },
});

const update = groupRoute({
  method: "put",
  path: "/groups/{id}",
  summary: "Rename or describe a group (group:manage)",
  request: { params: IdParam, ...body(UpdateGroupInput) },
  responses: { 200: { description: "Group", ...json(GroupSchema) }, ...errs(400, 404, 409) },
});

const remove = groupRoute({
  method: "delete",
  path: "/groups/{id}",
  summary: "Delete a group (group:manage)",
  request: { params: IdParam },
  responses: { 200: { description: "Deleted", ...json(SuccessSchema) }, ...errs(404) },
});

const addMember = groupRoute({
  method: "post",
  path: "/groups/{id}/members",
  summary: "Add a user of the organization to the group (group:manage)",
  request: { params: IdParam, ...body(AddMemberInput) },
  responses: { 201: { description: "Member", ...json(GroupMemberSchema) }, ...errs(400, 404) },
});

const members = groupRoute({
  method: "get",
  path: "/groups/{id}/members",
  summary: "Members of the group (org:read)",
  request: { params: IdParam },
  responses: { 200: { description: "Members", ...json(GroupMemberListSchema) }, ...errs(404) },
});

const removeMember = groupRoute({
  method: "delete",
  path: "/groups/{id}/members/{userId}",
  summary: "Remove a member (group:manage)",
  request: { params: MemberParams },
  responses: { 200: { description: "Removed", ...json(SuccessSchema) }, ...errs(404) },
});

/**
 * Groups of users and their members, scoped to the caller's organization;
 * reads need org:read, changes group:manage (both checked by the service).
 */
export function groupsRoutes(ctx: AppContext, guards: Guards): Router {
  const r = newRouter();
  const groups = ctx.services.groups;
  const auth = guards.auth();
  const done = { success: true };
  r.openapi({ ...create, middleware: [auth] }, (c) =>
    c.json(groups.create(actorOf(c), c.req.valid("json")), 201),
  );
  r.openapi({ ...list, middleware: [auth] }, (c) =>
    c.json(groups.list(actorOf(c), c.req.valid("query")), 200),
  );
  r.openapi({ ...get, middleware: [auth] }, (c) =>
    c.json(groups.get(actorOf(c), c.req.valid("param").id), 200),
  );
  r.openapi({ ...update, middleware: [auth] }, (c) =>
    c.json(groups.update(actorOf(c), c.req.valid("param").id, c.req.valid("json")), 200),
  );
  r.openapi({ ...remove, middleware: [auth] }, (c) => {
    groups.remove(actorOf(c), c.req.valid("param").id);
    return c.json(done, 200);
  });
  r.openapi({ ...addMember, middleware: [auth] }, (c) =>
    c.json(groups.addMember(actorOf(c), c.req.valid("param").id, c.req.valid("json")), 201),
  );
  r.openapi({ ...members, middleware: [auth] }, (c) =>
    c.json(groups.members(actorOf(c), c.req.valid("param").id), 200),
  );
  r.openapi({ ...removeMember, middleware: [auth] }, (c) => {
    const { id, userId } = c.req.valid("param");
    groups.removeMember(actorOf(c), id, userId);
    return c.json(done, 200);
  });
  return r;
}
