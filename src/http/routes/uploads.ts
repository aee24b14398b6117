import { randomUUID } from "node:crypto";
import { createReadStream, mkdirSync } from "node:fs";
import { join } from "node:path";
import { FileStore } from "@tus/file-store";
import { EVENTS, Server } from "@tus/server";
import type { AppContext } from "../../context.ts";
import type { Actor } from "../../domain/actor.ts";
import { AppError } from "../../errors.ts";
import { fsyncPath } from "../../platform/blobstore.ts";
import { actorOf, type Router } from "../env.ts";
import type { Guards } from "../router.ts";
import { newRouter } from "../router.ts";

/**
 * The file store, durable (fsync before each acknowledgement), minus its
 * constructor's asynchronous mkdir, which throws from a callback (an uncaught exception: the whole server would stop) when
 * the directory vanished meanwhile. The directory is made synchronously
 * before it, and a missing one later fails the request that needs it.
 */
class SyncCreatedFileStore extends FileStore {
  private readonly dir: string;

  constructor(dir: string, options: ConstructorParameters<typeof FileStore>[0]) {
    super(options);
    this.dir = dir;
  }

  /** A created upload is on disk (its file, its record, their names) before the 201 says it exists. */
  override async create(file: Parameters<FileStore["create"]>[0]) {
    const created = await super.create(file);
    await fsyncPath(join(this.dir, file.id));
    await fsyncPath(join(this.dir, `${file.id}.json`)).catch(() => undefined);
    await fsyncPath(this.dir);
    return created;
  }

  /**
   * Bytes of a PATCH are on disk before the new offset is acknowledged: after
   * a power cut, HEAD never answers an offset the disk does not hold.
   */
  override async write(...args: Parameters<FileStore["write"]>) {
    const offset = await super.write(...args);
    await fsyncPath(join(this.dir, args[1]));
    return offset;
  }
}
// (Private in its typings, so shadowed on the subclass's prototype: the base class is untouched.)
(SyncCreatedFileStore.prototype as unknown as { checkOrCreateDirectory(): void }).checkOrCreateDirectory =
  () => {};

/** How tus hooks refuse: the library sends `status_code` and `body`. */
const refusal = (err: unknown) => {
  const e =
    err instanceof AppError ? err : new AppError("INTERNAL", "upload failed", undefined, { cause: err });
  return { status_code: e.status, body: JSON.stringify({ error: { code: e.wire, message: e.message } }) };
};

/**
 * Resumable uploads, tus 1.0.0 (core, creation, creation-with-upload,
 * termination, expiration) at /api/v1/uploads, with @tus/server and its file
 * store under DATA_DIR/tus. `Upload-Metadata`: `filename`, optional
 * `parent_id` and `sha256`. Every request is authenticated like the rest of
 * the API; an upload's id starts with its owner's id, so nobody else can
 * resume, read or terminate it (404). The destination is checked at creation;
 * the finished bytes then go through the same durable upload as POST /files
 * (hash check, fsync, dedup, names, read-only folders, the size limit) and
 * the tus copy is removed: a half upload never shows in the tree.
 */
export function uploadsRoutes(ctx: AppContext, guards: Guards): Router {
  const r = newRouter();
  const directory = join(ctx.dataDir, "tus");
  mkdirSync(directory, { recursive: true, mode: 0o700 });
  const expiryMs = ctx.cfg.storage.resumable_upload_expiry_hours * 3600_000;
  const store = new SyncCreatedFileStore(directory, { directory, expirationPeriodInMilliseconds: expiryMs });
  const actors = new WeakMap<Request, Actor>();
  const actorFor = (req: Request): Actor => {
    const a = actors.get(req);
    if (!a) throw { status_code: 401, body: "authentication required" };
    return a;
  };
  const files = ctx.services.files;
  const tus = new Server({
    path: "/api/v1/uploads",
    datastore: store,
    ...(ctx.cfg.storage.max_upload_bytes > 0 ? { maxSize: ctx.cfg.storage.max_upload_bytes } : {}),
    respectForwardedHeaders: ctx.cfg.server.trust_proxy,
    namingFunction: (req) => `${actorFor(req).userId}-${randomUUID()}`,
    async onIncomingRequest(req, uploadId) {
      if (!uploadId.startsWith(`${actorFor(req).userId}-`))
        throw { status_code: 404, body: "upload not found" };
    },
    async onUploadCreate(req, upload) {
      const actor = actorFor(req);
      const meta = upload.metadata ?? {};
      try {
        if (!meta.filename) throw new AppError("VALIDATION", "Upload-Metadata needs a filename");
        files.checkDestination(actor, meta.parent_id || null, meta.filename);
      } catch (err) {
        throw refusal(err);
      }
      return {};
    },
    async onUploadFinish(req, upload) {
      const actor = actorFor(req);
      const meta = upload.metadata ?? {};
      try {
        const file = await files.upload(actor, {
          name: meta.filename ?? "",
          parentId: meta.parent_id || null,
          source: createReadStream(join(directory, upload.id)),
          ...(meta.sha256 ? { expectedSha256: meta.sha256 } : {}),
        });
        return { headers: { "Upload-File-Id": file.id } };
      } catch (err) {
        await store.remove(upload.id).catch(() => {});
        throw refusal(err);
      }
    },
  });
  // The tus copy goes once the answer is written (the library reads it back until then).
  tus.on(EVENTS.POST_FINISH, (_req, _res, upload) => {
    store
      .remove(upload.id)
      .catch((err: unknown) => ctx.log.warn({ err }, "could not remove a finished upload"));
  });
  const sweep = () =>
    tus
      .cleanUpExpiredUploads()
      .catch((err: unknown) => ctx.log.warn({ err }, "could not remove expired uploads"));
  void sweep();
  setInterval(sweep, Math.min(expiryMs, 3600_000)).unref();

  const handle = guards.auth("file:write");
  for (const path of ["/uploads", "/uploads/*"]) {
    r.use(path, handle);
    r.all(path, (c) => {
      actors.set(c.req.raw, actorOf(c));
      return tus.handleWeb(c.req.raw);
    });
  }
  return r;
}
