import { createRoute } from "@hono/zod-openapi";
import type { AppContext } from "../../context.ts";
import {
  GrantsQuery,
  GrantsSchema,
  SetGrantsInput,
  SubjectListSchema,
} from "../../domain/access/grants.schemas.ts";
import { actorOf, type Router } from "../env.ts";
import { body, errorResponses, type Guards, json, newRouter, SECURED } from "../router.ts";

function grantsRoute<const R extends Parameters<typeof createRoute>[0]>(r: R) {
  return createRoute({ tags: ["Grants"], security: SECURED, ...r });
}

const RULES =
  "A folder is governed by the nearest folder at or above it with a list of its own; that list alone decides " +
  "(a subfolder's list narrows or widens its parent's). Levels: read, write, manage. A personal folder's owner " +
  "manages everything in it; organization admins manage every folder outside personal folders. See docs/access.md.";

const get = grantsRoute({
  method: "get",
  path: "/grants",
  summary: "The grants that apply to a folder (or the top): needs read on it",
  description: RULES,
  request: { query: GrantsQuery },
  responses: {
    200: { description: "Grants", ...json(GrantsSchema) },
    ...errorResponses(400, 401, 403, 404, 429),
  },
});

const put = grantsRoute({
  method: "put",
  path: "/grants",
  summary: "Give a folder (or the top) its own list, replacing what it had or inherited: needs manage",
  description: RULES,
  request: body(SetGrantsInput),
  responses: {
    200: { description: "Grants", ...json(GrantsSchema) },
    ...errorResponses(400, 401, 403, 404, 429),
  },
});

const clear = grantsRoute({
  method: "delete",
  path: "/grants",
  summary: "Drop a folder's own list so it inherits again (the top returns to everyone: write): needs manage",
  request: { query: GrantsQuery },
  responses: {
    200: { description: "Grants", ...json(GrantsSchema) },
    ...errorResponses(400, 401, 403, 404, 429),
  },
});

const subjects = grantsRoute({
  method: "get",
  path: "/grants/subjects",
  summary: "Whom a grant can name: everyone, the organization's users and groups",
  responses: {
    200: { description: "Subjects", ...json(SubjectListSchema) },
    ...errorResponses(401, 429),
  },
});

/** GET/PUT/DELETE /grants, GET /grants/subjects. */
export function grantsRoutes(ctx: AppContext, guards: Guards): Router {
  const r = newRouter();
  const grants = ctx.services.grants;
  r.openapi({ ...subjects, middleware: [guards.auth("file:read")] }, (c) =>
    c.json(grants.subjects(actorOf(c)), 200),
  );
  r.openapi({ ...get, middleware: [guards.auth("file:read")] }, (c) =>
    c.json(grants.get(actorOf(c), c.req.valid("query")), 200),
  );
  r.openapi({ ...put, middleware: [guards.auth("file:read")] }, async (c) =>
    c.json(await grants.set(actorOf(c), c.req.valid("json")), 200),
  );
  r.openapi({ ...clear, middleware: [guards.auth("file:read")] }, async (c) =>
    c.json(await grants.clear(actorOf(c), c.req.valid("query")), 200),
  );
  return r;
}
