import { createRoute, z } from "@hono/zod-openapi";
import type { AppContext } from "../../context.ts";
import { FileListSchema } from "../../domain/files/files.schemas.ts";
import { IdParam } from "../../domain/ids.schemas.ts";
import {
  CreateWatchedFolderInput,
  ListFilesInput,
  ScanInput,
  UpdateWatchedFolderInput,
  WatchedFolderSchema,
} from "../../domain/watched/watched.schemas.ts";
import { actorOf, type Router } from "../env.ts";
import { errorResponses, type Guards, json, newRouter, SECURED, SuccessSchema } from "../router.ts";

/** GET /watched-folders (exported for the UI's types, web/src/lib/types.ts). */
export const FolderList = z.object({ folders: z.array(WatchedFolderSchema) }).openapi("WatchedFolderList");

const route = <T extends Parameters<typeof createRoute>[0]>(r: T) =>
  createRoute({ ...r, tags: ["Watched folders"], security: SECURED });

const create = route({
  method: "post",
  path: "/watched-folders",
  summary:
    "Mount a host directory read-only into the tree (an instance admin only: org:admin is not enough); the first scan runs in the background",
  description:
    "Refused with 403 ERR_FORBIDDEN_PATH for `/`, system directories (/etc, /root, /sys, /proc, /dev, /boot), " +
    "Attic's data dir (or a folder containing it) and folders overlapping another watched folder; " +
    "400 when the path is not an existing absolute directory.",
  request: { body: { ...json(CreateWatchedFolderInput), required: true } },
  responses: {
    201: { description: "Created; status `scanning`", ...json(WatchedFolderSchema) },
    ...errorResponses(400, 401, 403, 404, 409, 429),
  },
});
const list = route({
  method: "get",
  path: "/watched-folders",
  summary: "List the organization's watched folders with status and scan progress",
  responses: {
    200: { description: "Folders by name", ...json(FolderList) },
    ...errorResponses(401, 403, 429),
  },
});
const get = route({
  method: "get",
  path: "/watched-folders/{id}",
  summary: "A watched folder: status (idle, scanning, watching, polling, offline, error) and progress",
  request: { params: IdParam },
  responses: {
    200: { description: "The folder", ...json(WatchedFolderSchema) },
    ...errorResponses(401, 403, 404, 429),
  },
});
const update = route({
  method: "put",
  path: "/watched-folders/{id}",
  summary: "Rename a watched folder (and its directory in the tree) and/or point it at another host path",
  request: { params: IdParam, body: { ...json(UpdateWatchedFolderInput), required: true } },
  responses: {
    200: { description: "The folder", ...json(WatchedFolderSchema) },
    ...errorResponses(400, 401, 403, 404, 409, 429),
  },
});
const remove = route({
  method: "delete",
  path: "/watched-folders/{id}",
  summary: "Unmount a watched folder: its rows leave the tree; host files are never touched",
  request: { params: IdParam },
  responses: {
    200: { description: "Removed", ...json(SuccessSchema) },
    ...errorResponses(401, 403, 404, 429),
  },
});
const scan = route({
  method: "post",
  path: "/watched-folders/{id}/scan",
  summary: "Queue a rescan (unchanged directories are skipped unless `full`, in the query or a JSON body)",
  request: { params: IdParam, query: ScanInput, body: { ...json(ScanInput), required: false } },
  responses: {
    202: { description: "Queued", ...json(WatchedFolderSchema) },
    ...errorResponses(400, 401, 403, 404, 429),
  },
});
const files = route({
  method: "get",
  path: "/watched-folders/{id}/files",
  summary: "Indexed files of a watched folder, by host path",
  request: { params: IdParam, query: ListFilesInput },
  responses: {
    200: { description: "A page of files", ...json(FileListSchema) },
    ...errorResponses(400, 401, 403, 404, 429),
  },
});

/** Watched folders: CRUD, scan and indexed files; permission checks in the watched service. */
export function watchedFoldersRoutes(ctx: AppContext, guards: Guards): Router {
  const r = newRouter();
  const watched = ctx.services.watched;
  r.use("/watched-folders", guards.auth());
  r.use("/watched-folders/*", guards.auth());

  r.openapi(create, async (c) => c.json(await watched.create(actorOf(c), c.req.valid("json")), 201));
  r.openapi(list, (c) => c.json(watched.list(actorOf(c)), 200));
  r.openapi(get, (c) => c.json(watched.get(actorOf(c), c.req.valid("param").id), 200));
  r.openapi(update, async (c) =>
    c.json(await watched.update(actorOf(c), c.req.valid("param").id, c.req.valid("json")), 200),
  );
  r.openapi(remove, async (c) => {
    await watched.remove(actorOf(c), c.req.valid("param").id);
    return c.json({ success: true }, 200);
  });
  r.openapi(scan, (c) => {
    // `full` may come in the query or in an optional JSON body; either turns it on.
    const input = { ...c.req.valid("query"), ...(c.req.valid("json") ?? {}) };
    return c.json(watched.scan(actorOf(c), c.req.valid("param").id, input), 202);
  });
  r.openapi(files, async (c) => {
    return c.json(await watched.listFiles(actorOf(c), c.req.valid("param").id, c.req.valid("query")), 200);
  });
  return r;
}
