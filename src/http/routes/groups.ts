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
import { body, errorResponses, type Guards, json, newRouter, ok, SECURED, SuccessSchema } from "../router.ts";

const MemberParams = IdParam.extend({ userId: pathId("userId") });

/** Group routes: reads need org:read, changes group:manage (both checked by the service). */
function groupRoutes(guard: ReturnType<Guards["auth"]>) {
  const common = { tags: ["Groups"], security: SECURED, middleware: guard };
  const errs = (...s: number[]) => errorResponses(401, 403, 429, ...s);
  return {
    create: createRoute({
      ...common,
      method: "post",
      path: "/groups",
      summary: "Create a group (group:manage)",
      request: body(CreateGroupInput),
      responses: { 201: { description: "Created", ...json(GroupSchema) }, ...errs(400, 409) },
    }),
    list: createRoute({
      ...common,
      method: "get",
      path: "/groups",
      summary: "Groups of the organization (org:read)",
      request: { query: PageQuery },
      responses: { ...ok("Groups", GroupListSchema), ...errs(400) },
    }),
    get: createRoute({
      ...common,
      method: "get",
      path: "/groups/{id}",
      summary: "One group (org:read)",
      request: { params: IdParam },
      responses: { ...ok("Group", GroupSchema), ...errs(404) },
    }),
    update: createRoute({
      ...common,
      method: "put",
      path: "/groups/{id}",
      summary: "Rename or describe a group (group:manage)",
      request: { params: IdParam, ...body(UpdateGroupInput) },
      responses: { ...ok("Group", GroupSchema), ...errs(400, 404, 409) },
    }),
    remove: createRoute({
      ...common,
      method: "delete",
      path: "/groups/{id}",
      summary: "Delete a group (group:manage)",
      request: { params: IdParam },
      responses: { ...ok("Deleted", SuccessSchema), ...errs(404) },
    }),
    addMember: createRoute({
      ...common,
      method: "post",
      path: "/groups/{id}/members",
      summary: "Add a user of the organization to the group (group:manage)",
      request: { params: IdParam, ...body(AddMemberInput) },
      responses: { 201: { description: "Member", ...json(GroupMemberSchema) }, ...errs(400, 404) },
    }),
    members: createRoute({
      ...common,
      method: "get",
      path: "/groups/{id}/members",
      summary: "Members of the group (org:read)",
      request: { params: IdParam },
      responses: { ...ok("Members", GroupMemberListSchema), ...errs(404) },
    }),
    removeMember: createRoute({
      ...common,
      method: "delete",
      path: "/groups/{id}/members/{userId}",
      summary: "Remove a member (group:manage)",
      request: { params: MemberParams },
      responses: { ...ok("Removed", SuccessSchema), ...errs(404) },
    }),
  };
}

/** Groups of users and their members, scoped to the caller's organization. */
export function groupsRoutes(ctx: AppContext, guards: Guards): Router {
  const r = newRouter();
  const groups = ctx.services.groups;
  const rt = groupRoutes(guards.auth());
  const done = { success: true };
  r.openapi(rt.create, (c) => c.json(groups.create(actorOf(c), c.req.valid("json")), 201));
  r.openapi(rt.list, (c) => c.json(groups.list(actorOf(c), c.req.valid("query")), 200));
  r.openapi(rt.get, (c) => c.json(groups.get(actorOf(c), c.req.valid("param").id), 200));
  r.openapi(rt.update, (c) =>
    c.json(groups.update(actorOf(c), c.req.valid("param").id, c.req.valid("json")), 200),
  );
  r.openapi(rt.remove, (c) => {
    groups.remove(actorOf(c), c.req.valid("param").id);
    return c.json(done, 200);
  });
  r.openapi(rt.addMember, (c) =>
    c.json(groups.addMember(actorOf(c), c.req.valid("param").id, c.req.valid("json")), 201),
  );
  r.openapi(rt.members, (c) => c.json(groups.members(actorOf(c), c.req.valid("param").id), 200));
  r.openapi(rt.removeMember, (c) => {
    const { id, userId } = c.req.valid("param");
    groups.removeMember(actorOf(c), id, userId);
    return c.json(done, 200);
  });
  return r;
}
