import { createRoute, z } from "@hono/zod-openapi";
import type { AppContext } from "../../context.ts";
import { IdParam, pathId } from "../../domain/ids.schemas.ts";
import {
  AttachTagsInput,
  CreateTagInput,
  FileTagsSchema,
  TagListSchema,
  TagSchema,
  UpdateTagInput,
} from "../../domain/tags/tags.schemas.ts";
import { actorOf, type Router } from "../env.ts";
import { errorResponses, type Guards, json, newRouter, SECURED, SuccessSchema } from "../router.ts";

const FileTagParams = z.object({ id: pathId("id", "File id"), tagId: pathId("tagId") });

const route = <T extends Parameters<typeof createRoute>[0]>(r: T) =>
  createRoute({ ...r, tags: ["Tags"], security: SECURED });

const list = route({
  method: "get",
  path: "/tags",
  summary: "List the organization's tags",
  responses: {
    200: { description: "Tags by name", ...json(TagListSchema) },
    ...errorResponses(401, 403, 429),
  },
});
const create = route({
  method: "post",
  path: "/tags",
  summary: "Create a tag (name unique ignoring case; color #rrggbb, default #808080)",
  request: { body: { ...json(CreateTagInput), required: true } },
  responses: {
    201: { description: "Created", ...json(TagSchema) },
    ...errorResponses(400, 401, 403, 409, 429),
  },
});
const get = route({
  method: "get",
  path: "/tags/{id}",
  summary: "Get a tag",
  request: { params: IdParam },
  responses: { 200: { description: "The tag", ...json(TagSchema) }, ...errorResponses(401, 403, 404, 429) },
});
const update = (method: "put" | "patch") =>
  route({
    method,
    path: "/tags/{id}",
    summary: "Rename or recolor a tag",
    request: { params: IdParam, body: { ...json(UpdateTagInput), required: true } },
    responses: {
      200: { description: "The updated tag", ...json(TagSchema) },
      ...errorResponses(400, 401, 403, 404, 409, 429),
    },
  });
const remove = route({
  method: "delete",
  path: "/tags/{id}",
  summary: "Delete a tag (detaches it from every file)",
  request: { params: IdParam },
  responses: {
    200: { description: "Deleted", ...json(SuccessSchema) },
    ...errorResponses(401, 403, 404, 429),
  },
});
const fileTags = route({
  method: "get",
  path: "/files/{id}/tags",
  summary: "Tags of a file",
  request: { params: IdParam },
  responses: {
    200: { description: "The file's tags", ...json(FileTagsSchema) },
    ...errorResponses(401, 403, 404, 429),
  },
});
const attach = route({
  method: "post",
  path: "/files/{id}/tags",
  summary: "Attach tags to a file ({tag_id} or {tag_ids}); attaching twice is harmless",
  request: { params: IdParam, body: { ...json(AttachTagsInput), required: true } },
  responses: {
    200: { description: "The file's tags after the change", ...json(FileTagsSchema) },
    ...errorResponses(400, 401, 403, 404, 429),
  },
});
const detach = route({
  method: "delete",
  path: "/files/{id}/tags/{tagId}",
  summary: "Detach a tag from a file (succeeds when it was not attached)",
  request: { params: FileTagParams },
  responses: {
    200: { description: "Detached", ...json(SuccessSchema) },
    ...errorResponses(401, 403, 404, 429),
  },
});

/** Tags CRUD and attaching tags to files; permission checks in the tags service. */
export function tagsRoutes(ctx: AppContext, guards: Guards): Router {
  const r = newRouter();
  const tags = ctx.services.tags;
  for (const p of ["/tags", "/tags/:id", "/files/:id/tags", "/files/:id/tags/:tagId"])
    r.use(p, guards.auth());

  r.openapi(list, (c) => c.json(tags.list(actorOf(c)), 200));
  r.openapi(create, (c) => c.json(tags.create(actorOf(c), c.req.valid("json")), 201));
  r.openapi(get, (c) => c.json(tags.get(actorOf(c), c.req.valid("param").id), 200));
  for (const method of ["put", "patch"] as const) {
    r.openapi(update(method), (c) =>
      c.json(tags.update(actorOf(c), c.req.valid("param").id, c.req.valid("json")), 200),
    );
  }
  r.openapi(remove, (c) => {
    tags.delete(actorOf(c), c.req.valid("param").id);
    return c.json({ success: true }, 200);
  });
  r.openapi(fileTags, (c) => c.json({ tags: tags.fileTags(actorOf(c), c.req.valid("param").id) }, 200));
  r.openapi(attach, (c) =>
    c.json({ tags: tags.attach(actorOf(c), c.req.valid("param").id, c.req.valid("json")) }, 200),
  );
  r.openapi(detach, (c) => {
    const { id, tagId } = c.req.valid("param");
    tags.detach(actorOf(c), id, tagId);
    return c.json({ success: true }, 200);
  });
  return r;
}
