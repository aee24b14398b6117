import { createRoute, z } from "@hono/zod-openapi";
import type { AppContext } from "../../context.ts";
import {
  CopyFileInput,
  FileContentSchema,
  FileListSchema,
  FileSchema,
  ListFilesInput,
  MoveFileInput,
  RecursiveInput,
  UpdateFileInput,
  ZipSelectionInput,
} from "../../domain/files/files.schemas.ts";
import { IdParam } from "../../domain/ids.schemas.ts";
import { actorOf, type Ctx, type Router } from "../env.ts";
import { sendContent } from "../file-response.ts";
import { receiveUpload } from "../multipart-upload.ts";
import { errorResponse, toAppError } from "../on-error.ts";
import { body, errorResponses, type Guards, json, newRouter, SECURED, SuccessSchema } from "../router.ts";
import { sendZip } from "../zip-response.ts";
import { streamTokenAuth } from "./stream-token.ts";

const binary = (description: string) => ({
  description,
  content: { "application/octet-stream": { schema: z.string().openapi({ format: "binary" }) } },
});
const st = z.object({
  st: z.string().optional().openapi({ description: "Stream token from POST /files/{id}/stream-token" }),
});

/** Builds a route under /files with the tag, security and entry permission of every file route. */
function fileRoute<const R extends Parameters<typeof createRoute>[0]>(r: R) {
  return createRoute({ tags: ["Files"], security: SECURED, ...r });
}

const uploadDoc = fileRoute({
  method: "post",
  path: "/files",
  summary: "Upload a file (multipart, streamed)",
  description:
    "multipart/form-data with `file` (required) and optional `parent_id` (alias `directory_id`; also accepted " +
    "in the query string) and `sha256`. Send the fields before the file so a bad destination is refused before " +
    "the body is read. `X-Content-SHA256` (or `sha256`) is checked against the content: mismatch = 400, nothing stored.",
  request: {
    body: {
      required: true,
      content: {
        "multipart/form-data": {
          schema: z.object({
            parent_id: z.string().optional(),
            directory_id: z.string().optional(),
            sha256: z.string().optional(),
            file: z.string().openapi({ format: "binary" }),
          }),
        },
      },
    },
  },
  responses: {
    201: { description: "Stored", ...json(FileSchema) },
    ...errorResponses(400, 401, 403, 404, 409, 413, 429, 500),
  },
});

const list = fileRoute({
  method: "get",
  path: "/files",
  summary: "List the live children of a directory (top level without parent_id)",
  request: { query: ListFilesInput },
  responses: {
    200: { description: "Page", ...json(FileListSchema) },
    ...errorResponses(400, 401, 403, 404, 429),
  },
});

const get = fileRoute({
  method: "get",
  path: "/files/{id}",
  summary: "Get a file or directory record",
  request: { params: IdParam },
  responses: { 200: { description: "File", ...json(FileSchema) }, ...errorResponses(401, 403, 404, 429) },
});

const download = fileRoute({
  method: "get",
  path: "/files/{id}/download",
  summary: "Download the content (attachment; ETag, 304, single ranges)",
  request: { params: IdParam, query: st },
  responses: {
    200: binary("The bytes"),
    206: binary("One byte range"),
    304: { description: "Not modified" },
    ...errorResponses(400, 401, 403, 404, 416, 429),
  },
});

const stream = fileRoute({
  method: "get",
  path: "/files/{id}/stream",
  summary: "Stream audio/video with byte ranges (RFC 9110 single ranges)",
  description:
    "Media types: video/mp4, video/webm, video/ogg, audio/mpeg, audio/ogg, audio/wav, audio/mp4, audio/x-m4a.",
  request: { params: IdParam, query: st },
  responses: {
    200: binary("The whole file"),
    206: binary("One byte range, with Content-Range"),
    304: { description: "Not modified" },
    ...errorResponses(400, 401, 403, 404, 416, 429),
  },
});

const content = fileRoute({
  method: "get",
  path: "/files/{id}/content",
  summary: "Text preview (text/* and application/json, at most 10 MB)",
  request: { params: IdParam },
  responses: {
    200: { description: "Text", ...json(FileContentSchema) },
    ...errorResponses(400, 401, 403, 404, 413, 429),
  },
});

const update = (method: "patch" | "put") =>
  fileRoute({
    method,
    path: "/files/{id}",
    summary: method === "patch" ? "Rename and/or move" : "Rename and/or move (variant of PATCH)",
    request: { params: IdParam, body: { required: true, ...json(UpdateFileInput) } },
    responses: {
      200: { description: "Updated", ...json(FileSchema) },
      ...errorResponses(400, 401, 403, 404, 409, 429),
    },
  });

const move = (method: "put" | "post") =>
  fileRoute({
    method,
    path: "/files/{id}/move",
    summary: method === "put" ? "Move under new_parent_id (null = top level)" : "Move (variant of PUT)",
    request: { params: IdParam, body: { required: true, ...json(MoveFileInput) } },
    responses: {
      200: { description: "Moved", ...json(FileSchema) },
      ...errorResponses(400, 401, 403, 404, 409, 429),
    },
  });

const copy = fileRoute({
  method: "post",
  path: "/files/{id}/copy",
  summary: "Copy a file (content shared) or a directory subtree",
  request: { params: IdParam, body: { required: true, ...json(CopyFileInput) } },
  responses: {
    201: { description: "The copy", ...json(FileSchema) },
    ...errorResponses(400, 401, 403, 404, 409, 429),
  },
});

const remove = fileRoute({
  method: "delete",
  path: "/files/{id}",
  summary: "Soft-delete (to the trash); a non-empty directory needs recursive=true",
  request: { params: IdParam, query: RecursiveInput },
  responses: {
    200: { description: "Deleted", ...json(SuccessSchema) },
    ...errorResponses(400, 401, 403, 404, 429),
  },
});

/** Uploads: errors before the body is read close the connection instead of draining gigabytes. */
async function handleUpload(ctx: AppContext, c: Ctx): Promise<Response> {
  try {
    return c.json(await receiveUpload(ctx, c), 201);
  } catch (err) {
    const incoming = c.env.incoming as { complete?: boolean; httpVersionMajor?: number };
    const close = !incoming.complete && incoming.httpVersionMajor === 1;
    return errorResponse(
      c,
      toAppError(err, c.get("log") ?? ctx.log),
      close ? { Connection: "close" } : undefined,
    );
  }
}

const zipSelection = fileRoute({
  method: "post",
  path: "/files/zip",
  summary: "Download items of one folder as one zip (streamed; stored, UTF-8 names, Zip64)",
  description:
    "Each item with its subtree, as far as the caller may read. At most 100,000 entries (400 beyond); ids from two folders are 400.",
  request: body(ZipSelectionInput),
  responses: { 200: binary("The zip archive"), ...errorResponses(400, 401, 403, 404, 429) },
});

/** Every /files route of docs/api.md and its variants. */
export function filesRoutes(ctx: AppContext, guards: Guards): Router {
  const r = newRouter();
  const files = ctx.services.files;
  const read = guards.auth("file:read");
  const write = guards.auth("file:write");
  const byToken = streamTokenAuth(ctx, guards);

  r.openAPIRegistry.registerPath(uploadDoc);
  r.openapi({ ...zipSelection, middleware: [read] }, async (c) => {
    const plan = await files.zipPlan(actorOf(c), { ids: c.req.valid("json").ids });
    files.countDownload("download");
    return sendZip(c, plan, files.openEntry, ctx.log);
  });
  r.post("/files", write, (c) => handleUpload(ctx, c));
  r.openapi({ ...list, middleware: [read] }, (c) =>
    c.json(files.list(actorOf(c), c.req.valid("query")), 200),
  );
  r.openapi({ ...get, middleware: [read] }, (c) =>
    c.json(files.get(actorOf(c), c.req.valid("param").id), 200),
  );
  r.openapi({ ...download, middleware: [byToken] }, async (c) => {
    const opened = await files.openContent(actorOf(c), c.req.valid("param").id, { verify: false });
    files.countDownload("download");
    return sendContent(c, opened, "attachment");
  });
  r.openapi({ ...stream, middleware: [byToken] }, async (c) => {
    const opened = await files.openMedia(actorOf(c), c.req.valid("param").id, { verify: false });
    files.countDownload("stream");
    return sendContent(c, opened, "inline");
  });
  r.openapi({ ...content, middleware: [read] }, async (c) =>
    c.json(await files.readText(actorOf(c), c.req.valid("param").id), 200),
  );
  for (const method of ["patch", "put"] as const) {
    r.openapi({ ...update(method), middleware: [write] }, async (c) =>
      c.json(await files.update(actorOf(c), c.req.valid("param").id, c.req.valid("json")), 200),
    );
  }
  for (const method of ["put", "post"] as const) {
    r.openapi({ ...move(method), middleware: [write] }, async (c) =>
      c.json(await files.move(actorOf(c), c.req.valid("param").id, c.req.valid("json")), 200),
    );
  }
  r.openapi({ ...copy, middleware: [write] }, async (c) =>
    c.json(await files.copy(actorOf(c), c.req.valid("param").id, c.req.valid("json")), 201),
  );
  r.openapi({ ...remove, middleware: [guards.auth("file:delete")] }, async (c) =>
    c.json(await files.remove(actorOf(c), c.req.valid("param").id, c.req.valid("query")), 200),
  );
  return r;
}
