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
import { body, errorResponses, type Guards, json, newRouter, SECURED, SuccessSchema } from "../router.ts";

/** Builds a route with the tag and security of every organization route. */
function orgRoute<const R extends Parameters<typeof createRoute>[0]>(r: R) {
  return createRoute({ tags: ["Organizations"], security: SECURED, ...r });
}

const errs = (...s: number[]) => errorResponses(401, 403, 429, ...s);

const list = orgRoute({
  method: "get",
  path: "/organizations",
  summary: "The caller's organization (instance administrator: every organization)",
  responses: { 200: { description: "Organizations", ...json(OrganizationListSchema) }, ...errs() },
});

const create = orgRoute({
  method: "post",
  path: "/organizations",
  summary: "Create an organization with built-in roles and an optional first Admin (instance admin)",
  request: body(CreateOrganizationInput),
  responses: { 201: { description: "Created", ...json(OrganizationSchema) }, ...errs(400, 409) },
});

const get = orgRoute({
  method: "get",
  path: "/organizations/{id}",
  summary: "One organization (own with org:read; instance admin: any)",
  request: { params: IdParam },
  responses: { 200: { description: "Organization", ...json(OrganizationSchema) }, ...errs(404) },
});

const update = orgRoute({
  method: "put",
  path: "/organizations/{id}",
  summary: "Rename an organization (own with org:admin; instance admin: any)",
  request: { params: IdParam, ...body(UpdateOrganizationInput) },
  responses: { 200: { description: "Organization", ...json(OrganizationSchema) }, ...errs(400, 404) },
});

const remove = orgRoute({
  method: "delete",
  path: "/organizations/{id}",
  summary: "Delete an organization and everything in it (instance admin; never its own or the last)",
  request: { params: IdParam },
  responses: { 200: { description: "Deleted", ...json(SuccessSchema) }, ...errs(404, 409) },
});

/**
 * Organizations: members see their own; the instance administrator manages
 * all (who may do what is decided by the service, see createOrgsService).
 */
export function organizationsRoutes(ctx: AppContext, guards: Guards): Router {
  const r = newRouter();
  const orgs = ctx.services.orgs;
  const auth = guards.auth();
  r.openapi({ ...list, middleware: [auth] }, (c) => c.json(orgs.list(actorOf(c)), 200));
  r.openapi({ ...create, middleware: [auth] }, async (c) =>
    c.json(await orgs.create(actorOf(c), c.req.valid("json")), 201),
  );
  r.openapi({ ...get, middleware: [auth] }, (c) =>
    c.json(orgs.get(actorOf(c), c.req.valid("param").id), 200),
  );
  r.openapi({ ...update, middleware: [auth] }, (c) =>
    c.json(orgs.update(actorOf(c), c.req.valid("param").id, c.req.valid("json")), 200),
  );
  r.openapi({ ...remove, middleware: [auth] }, async (c) => {
    await orgs.remove(actorOf(c), c.req.valid("param").id);
    return c.json({ success: true }, 200);
  });
  return r;
}
