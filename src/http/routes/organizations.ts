import { createRoute } from "@hono/zod-openapi";
import type { AppContext } from "../../context.ts";
import { IdParam } from "../../domain/ids.schemas.ts";
import {
  CreateOrganizationInput,
  OrganizationListSchema,
  OrganizationSchema,
  UpdateOrganizationInput,
} from "../../domain/orgs/orgs.schemas.ts";
import { actorOf, type Router } from "../env.ts";
import { body, errorResponses, type Guards, json, newRouter, ok, SECURED, SuccessSchema } from "../router.ts";

/** Organization routes; who may do what is decided by the service (see createOrgsService). */
function orgRoutes(guard: ReturnType<Guards["auth"]>) {
  const common = { tags: ["Organizations"], security: SECURED, middleware: guard };
  const errs = (...s: number[]) => errorResponses(401, 403, 429, ...s);
  return {
    list: createRoute({
      ...common,
      method: "get",
      path: "/organizations",
      summary: "The caller's organization (instance administrator: every organization)",
      responses: { ...ok("Organizations", OrganizationListSchema), ...errs() },
    }),
    create: createRoute({
      ...common,
      method: "post",
      path: "/organizations",
      summary: "Create an organization with built-in roles and an optional first Admin (instance admin)",
      request: body(CreateOrganizationInput),
      responses: { 201: { description: "Created", ...json(OrganizationSchema) }, ...errs(400, 409) },
    }),
    get: createRoute({
      ...common,
      method: "get",
      path: "/organizations/{id}",
      summary: "One organization (own with org:read; instance admin: any)",
      request: { params: IdParam },
      responses: { ...ok("Organization", OrganizationSchema), ...errs(404) },
    }),
    update: createRoute({
      ...common,
      method: "put",
      path: "/organizations/{id}",
      summary: "Rename an organization (own with org:admin; instance admin: any)",
      request: { params: IdParam, ...body(UpdateOrganizationInput) },
      responses: { ...ok("Organization", OrganizationSchema), ...errs(400, 404) },
    }),
    remove: createRoute({
      ...common,
      method: "delete",
      path: "/organizations/{id}",
      summary: "Delete an organization and everything in it (instance admin; never its own or the last)",
      request: { params: IdParam },
      responses: { ...ok("Deleted", SuccessSchema), ...errs(404, 409) },
    }),
  };
}

/** Organizations: members see their own; the instance administrator manages all. */
export function organizationsRoutes(ctx: AppContext, guards: Guards): Router {
  const r = newRouter();
  const orgs = ctx.services.orgs;
  const rt = orgRoutes(guards.auth());
  r.openapi(rt.list, (c) => c.json(orgs.list(actorOf(c)), 200));
  r.openapi(rt.create, async (c) => c.json(await orgs.create(actorOf(c), c.req.valid("json")), 201));
  r.openapi(rt.get, (c) => c.json(orgs.get(actorOf(c), c.req.valid("param").id), 200));
  r.openapi(rt.update, (c) =>
    c.json(orgs.update(actorOf(c), c.req.valid("param").id, c.req.valid("json")), 200),
  );
  r.openapi(rt.remove, async (c) => {
    await orgs.remove(actorOf(c), c.req.valid("param").id);
    return c.json({ success: true }, 200);
  });
  return r;
}
