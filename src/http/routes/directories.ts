import { createRoute, z } from "@hono/zod-openapi";
import type { AppContext } from "../../context.ts";
import type { DirectoryNodeDto } from "../../domain/files/files.dto.ts";
import {
  CreateDirectoryInput,
  DirectoryListSchema,
  DirectorySchema,
  FileListSchema,
  ListFilesInput,
  MoveFileInput,
  PageInput,
  RecursiveInput,
  TreeInput,
} from "../../domain/files/files.schemas.ts";
import { IdParam } from "../../domain/ids.schemas.ts";
import { actorOf, type Router } from "../env.ts";
import { errorResponses, type Guards, json, newRouter, SECURED, SuccessSchema } from "../router.ts";
import { sendZip } from "../zip-response.ts";
import { streamTokenAuth } from "./stream-token.ts";

const DirectoryNodeSchema: z.ZodType<DirectoryNodeDto> = z
  .object({
    directory: DirectorySchema,
    get children() {
      return z.array(DirectoryNodeSchema);
    },
  })
  .openapi("DirectoryNode");

function dirRoute<const R extends Parameters<typeof createRoute>[0]>(r: R) {
  return createRoute({ tags: ["Directories"], security: SECURED, ...r });
}

const zip = dirRoute({
  method: "get",
  path: "/directories/{id}/zip",
  summary: "Download a folder as one zip (streamed; stored, UTF-8 names, Zip64)",
  description:
    "The folder and everything below it the caller may read, under the folder's name. Bearer, API key, or `st` " +
    "(a stream token from POST /files/{id}/stream-token for the folder's id, for links). At most 100,000 entries.",
  request: {
    params: IdParam,
    query: z.object({
      st: z.string().optional().openapi({ description: "Stream token for this folder" }),
      ids: z.string().max(40_000).optional().openapi({
        description: "Comma-separated ids of items directly in this folder: zip only those (a selection)",
      }),
    }),
  },
  responses: {
    200: {
      description: "The zip archive",
      content: { "application/zip": { schema: { type: "string", format: "binary" } } },
    },
    ...errorResponses(400, 401, 403, 404, 429),
  },
});

const create = dirRoute({
  method: "post",
  path: "/directories",
  summary: "Create a directory (under parent_id, or at the top)",
  request: { body: { required: true, ...json(CreateDirectoryInput) } },
  responses: {
    201: { description: "Created", ...json(DirectorySchema) },
    ...errorResponses(400, 401, 403, 404, 409, 429),
  },
});

const list = dirRoute({
  method: "get",
  path: "/directories",
  summary: "List the directories under parent_id (top level without it)",
  request: { query: ListFilesInput },
  responses: {
    200: { description: "Page", ...json(DirectoryListSchema) },
    ...errorResponses(400, 401, 403, 404, 429),
  },
});

const get = dirRoute({
  method: "get",
  path: "/directories/{id}",
  summary: "Get a directory with its child count",
  request: { params: IdParam },
  responses: {
    200: { description: "Directory", ...json(DirectorySchema) },
    ...errorResponses(401, 403, 404, 429),
  },
});

const children = dirRoute({
  method: "get",
  path: "/directories/{id}/children",
  summary: "Live children (files and directories), directories first",
  request: { params: IdParam, query: PageInput },
  responses: {
    200: { description: "Page", ...json(FileListSchema) },
    ...errorResponses(400, 401, 403, 404, 429),
  },
});

const tree = dirRoute({
  method: "get",
  path: "/directories/{id}/tree",
  summary: "The subdirectory tree, `depth` levels (0 = unlimited)",
  request: { params: IdParam, query: TreeInput },
  responses: {
    200: { description: "Tree", ...json(DirectoryNodeSchema) },
    ...errorResponses(400, 401, 403, 404, 429),
  },
});

const move = dirRoute({
  method: "post",
  path: "/directories/{id}/move",
  summary: "Move a directory under new_parent_id (null = top); not into its own subtree",
  request: { params: IdParam, body: { required: true, ...json(MoveFileInput) } },
  responses: {
    200: { description: "Moved", ...json(DirectorySchema) },
    ...errorResponses(400, 401, 403, 404, 409, 429),
  },
});

const remove = dirRoute({
  method: "delete",
  path: "/directories/{id}",
  summary: "Soft-delete a directory; non-empty needs recursive=true (else 400)",
  request: { params: IdParam, query: RecursiveInput },
  responses: {
    200: { description: "Deleted", ...json(SuccessSchema) },
    ...errorResponses(400, 401, 403, 404, 429),
  },
});

/** Every /directories route of docs/api.md. */
export function directoriesRoutes(ctx: AppContext, guards: Guards): Router {
  const r = newRouter();
  const dirs = ctx.services.directories;
  const read = guards.auth("file:read");
  const write = guards.auth("file:write");

  r.openapi({ ...zip, middleware: [streamTokenAuth(ctx, guards)] }, async (c) => {
    const files = ctx.services.files;
    const ids = c.req.valid("query").ids?.split(",").filter(Boolean);
    const plan = await files.zipPlan(actorOf(c), {
      directoryId: c.req.valid("param").id,
      ...(ids ? { ids } : {}),
    });
    files.countDownload("download");
    return sendZip(c, plan, files.openEntry, ctx.log);
  });

  r.openapi({ ...create, middleware: [write] }, (c) =>
    c.json(dirs.create(actorOf(c), c.req.valid("json")), 201),
  );
  r.openapi({ ...list, middleware: [read] }, (c) => c.json(dirs.list(actorOf(c), c.req.valid("query")), 200));
  r.openapi({ ...get, middleware: [read] }, (c) =>
    c.json(dirs.get(actorOf(c), c.req.valid("param").id), 200),
  );
  r.openapi({ ...children, middleware: [read] }, (c) =>
    c.json(dirs.children(actorOf(c), c.req.valid("param").id, c.req.valid("query")), 200),
  );
  r.openapi({ ...tree, middleware: [read] }, async (c) =>
    c.json(await dirs.tree(actorOf(c), c.req.valid("param").id, c.req.valid("query")), 200),
  );
  r.openapi({ ...move, middleware: [write] }, async (c) =>
    c.json(await dirs.move(actorOf(c), c.req.valid("param").id, c.req.valid("json")), 200),
  );
  r.openapi({ ...remove, middleware: [guards.auth("file:delete")] }, async (c) =>
    c.json(await dirs.remove(actorOf(c), c.req.valid("param").id, c.req.valid("query")), 200),
  );
  return r;
}
