import { createRoute, z } from "@hono/zod-openapi";
import type { AppContext } from "../../context.ts";
import { FileListSchema, FileSchema, PageInput } from "../../domain/files/files.schemas.ts";
import { actorOf, type Router } from "../env.ts";
import { errorResponses, type Guards, json, newRouter, SECURED, SuccessSchema } from "../router.ts";

const Id = z.object({
  id: z
    .string()
    .max(64)
    .openapi({ param: { name: "id", in: "path" } }),
});

function trashRoute<const R extends Parameters<typeof createRoute>[0]>(r: R) {
  return createRoute({ tags: ["Trash"], security: SECURED, ...r });
}

const list = trashRoute({
  method: "get",
  path: "/trash",
  summary: "Deleted items the caller may act on, newest first",
  description:
    "Items of folders the caller manages, and the caller's own items where it may still write (docs/access.md). " +
    "A deleted directory stands for its subtree; restore or purge it as one.",
  request: { query: PageInput },
  responses: { 200: { description: "Page", ...json(FileListSchema) }, ...errorResponses(400, 401, 403, 429) },
});

const restore = trashRoute({
  method: "post",
  path: "/trash/{id}/restore",
  summary: "Restore an item (and what was deleted with it) to its old place",
  description:
    "409 ERR_CONFLICT when a live item now has the same name there, or when the parent directory is itself " +
    "in the trash (restore the parent first). Its owner (with write) or whoever manages its folder.",
  request: { params: Id },
  responses: {
    200: { description: "Restored", ...json(FileSchema) },
    ...errorResponses(401, 403, 404, 409, 429),
  },
});

const purge = trashRoute({
  method: "delete",
  path: "/trash/{id}",
  summary: "Delete an item in the trash for good (owner with write, or manage); unused content is reclaimed",
  request: { params: Id },
  responses: {
    200: { description: "Purged", ...json(SuccessSchema) },
    ...errorResponses(401, 403, 404, 429),
  },
});

/** GET /trash, POST /trash/:id/restore, DELETE /trash/:id. */
export function trashRoutes(ctx: AppContext, guards: Guards): Router {
  const r = newRouter();
  const trash = ctx.services.trash;
  r.openapi({ ...list, middleware: [guards.auth("file:read")] }, (c) =>
    c.json(trash.list(actorOf(c), c.req.valid("query")), 200),
  );
  r.openapi({ ...restore, middleware: [guards.auth("file:write")] }, async (c) =>
    c.json(await trash.restore(actorOf(c), c.req.valid("param").id), 200),
  );
  r.openapi({ ...purge, middleware: [guards.auth("file:delete")] }, async (c) =>
    c.json(await trash.purge(actorOf(c), c.req.valid("param").id), 200),
  );
  return r;
}
