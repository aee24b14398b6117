import { randomUUID } from "node:crypto";
import { mkdirSync } from "node:fs";
import { stat, unlink } from "node:fs/promises";
import { join } from "node:path";
import { pipeline } from "node:stream";
import { FileStore } from "@tus/file-store";
import { EVENTS, Server } from "@tus/server";
import type { AppContext } from "../../context.ts";
import type { Actor } from "../../domain/actor.ts";
import { AppError, ERRORS, type ErrorCode, fromSystemError } from "../../errors.ts";
import { fsyncPath } from "../../platform/blobstore.ts";
import type { SpaceReserve } from "../../platform/disk-space.ts";
import { actorOf, type Router } from "../env.ts";
import type { Guards } from "../router.ts";
import { newRouter } from "../router.ts";

/**
 * The file store, durable (fsync before each acknowledgement), minus its
 * constructor's asynchronous mkdir, which throws from a callback (an uncaught exception: the whole server would stop) when
 * the directory vanished meanwhile. The directory is made synchronously
 * before it, and a missing one later fails the request that needs it.
 *
 * An unfinished upload expires a whole period after its last bytes were
 * written, not after its creation: the library counts from `creation_date`,
 * so a 40 GB upload over a slow line, still receiving bytes, was refused
 * (410) or swept away mid-way once a period had passed since it began. The
 * upload file's mtime is the last write (it moves while a PATCH streams and
 * survives a restart); the store hands the library that instant as the
 * upload's `creation_date`, and its sweep counts from it too.
 */
class SyncCreatedFileStore extends FileStore {
  private readonly dir: string;
  private readonly reserve: SpaceReserve;

  constructor(dir: string, reserve: SpaceReserve, options: ConstructorParameters<typeof FileStore>[0]) {
    super(options);
    this.dir = dir;
    this.reserve = reserve;
  }

  /** When the upload's expiry is counted from: its last write (or its creation, without a file). */
  private async activeSince(id: string, created: string | undefined): Promise<number | undefined> {
    const written = await stat(join(this.dir, id)).then(
      (st) => st.mtimeMs,
      () => undefined,
    );
    const born = created ? Date.parse(created) : undefined;
    return written === undefined ? born : Math.max(written, born ?? 0);
  }

  override async getUpload(id: string) {
    const upload = await super.getUpload(id);
    const since = await this.activeSince(id, upload.creation_date);
    if (since !== undefined) upload.creation_date = new Date(since).toISOString();
    return upload;
  }

  /** When the unfinished upload `id` expires now (for Upload-Expires), or undefined when unknown. */
  async expiresAt(id: string): Promise<Date | undefined> {
    const since = await this.activeSince(id, (await this.configstore.get(id))?.creation_date);
    return since === undefined ? undefined : new Date(since + this.getExpiration());
  }

  /** Removes the unfinished uploads idle for a whole period (the library's own sweep counts from creation). */
  override async deleteExpired() {
    const now = Date.now();
    let removed = 0;
    for (const id of (await this.configstore.list?.()) ?? []) {
      const at = await this.expiresAt(id).catch(() => undefined);
      if (at === undefined || now <= at.getTime()) continue;
      await this.remove(id).catch(() => undefined);
      removed++;
    }
    return removed;
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
  override async write(...[readable, id, start]: Parameters<FileStore["write"]>) {
    // The bytes pass the storage reserve's guard: a PATCH stops with 507 once the disk is nearly
    // full (what it wrote so far stays, and HEAD says how far it got), or at a full disk.
    const guard = this.reserve.guard();
    let failure: unknown;
    pipeline(readable, guard, (err) => {
      failure = err;
    });
    try {
      const offset = await super.write(guard, id, start);
      await fsyncPath(join(this.dir, id));
      return offset;
    } catch (err) {
      // The file store reports every failed write alike; the reserve (or a full disk) is the client's to hear.
      const cause = failure instanceof AppError ? failure : fromSystemError(failure);
      if (cause) throw refusal(cause);
      if (!this.reserve.allows(0)) throw refusal(this.reserve.refusal());
      throw err;
    }
  }

  /**
   * A finished upload's file may have been taken already; its record goes all
   * the same. An upload with neither (never made, or removed already) is 404.
   */
  override async remove(id: string) {
    const missing = (err: NodeJS.ErrnoException) => {
      if (err.code !== "ENOENT") throw err;
      return false;
    };
    const file = await unlink(join(this.dir, id)).then(() => true, missing);
    const record = await this.configstore.delete(id).then(() => true, missing);
    if (!file && !record) throw refusal(new AppError("NOT_FOUND", "upload not found"));
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

/** The API's code for a status the tus library refuses with (its bodies are plain text). */
const LIBRARY_REFUSALS: Record<number, ErrorCode> = {
  400: "VALIDATION",
  // The library answers a missing Upload-Offset or Content-Type with 403: bad input, told as 400.
  403: "VALIDATION",
  404: "NOT_FOUND",
  409: "CONFLICT",
  410: "GONE",
  412: "VALIDATION",
  413: "PAYLOAD_TOO_LARGE",
  415: "VALIDATION",
  501: "VALIDATION",
};

/**
 * An error answer of the tus library as the rest of the API answers
 * (`{"error": {"code", "message"}}`, application/json): its own refusals
 * (a wrong offset, a missing header, an unknown upload) are plain text.
 * Success answers and HEAD (no body) pass as they are.
 */
async function asApiError(res: Response, method: string): Promise<Response> {
  if (res.status < 400 || method === "HEAD") return res;
  const text = await res.text();
  let body = text;
  let status = res.status;
  if (!text.startsWith('{"error":')) {
    const code = LIBRARY_REFUSALS[status] ?? "INTERNAL";
    if (code === "VALIDATION" && status === 403) status = 400;
    const message = text.trim() || "upload refused";
    body = JSON.stringify({ error: { code: ERRORS[code].wire, message } });
  }
  const headers = new Headers(res.headers);
  headers.set("content-type", "application/json");
  headers.set("content-length", String(Buffer.byteLength(body)));
  return new Response(body, { status, headers });
}

/**
 * A PATCH answer's Upload-Expires, counted from the bytes it just wrote: the
 * library computes it from the upload as it was before them.
 */
async function withExpiry(res: Response, store: SyncCreatedFileStore, path: string): Promise<Response> {
  if (!res.headers.has("upload-expires")) return res;
  const id = decodeURIComponent(path.slice(path.lastIndexOf("/") + 1));
  const at = await store.expiresAt(id).catch(() => undefined);
  if (!at) return res;
  const headers = new Headers(res.headers);
  headers.set("upload-expires", at.toUTCString());
  return new Response(res.body, { status: res.status, headers });
}

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
  const files = ctx.services.files;
  const store = new SyncCreatedFileStore(directory, files.reserve, {
    directory,
    expirationPeriodInMilliseconds: expiryMs,
  });
  const actors = new WeakMap<Request, Actor>();
  const actorFor = (req: Request): Actor => {
    const a = actors.get(req);
    if (!a) throw refusal(new AppError("UNAUTHENTICATED", "authentication required"));
    return a;
  };
  const tus = new Server({
    path: "/api/v1/uploads",
    datastore: store,
    ...(ctx.cfg.storage.max_upload_bytes > 0 ? { maxSize: ctx.cfg.storage.max_upload_bytes } : {}),
    respectForwardedHeaders: ctx.cfg.server.trust_proxy,
    // The API's CORS (app.ts) decides who may call; unset, the library grants every origin ('*').
    allowedOrigins: ctx.cfg.server.cors_origins,
    namingFunction: (req) => `${actorFor(req).userId}-${randomUUID()}`,
    async onIncomingRequest(req, uploadId) {
      if (!uploadId.startsWith(`${actorFor(req).userId}-`))
        throw refusal(new AppError("NOT_FOUND", "upload not found"));
      // A PATCH declaring more bytes than the reserve leaves is refused before any is read.
      const declared = Number(req.headers.get("content-length") ?? Number.NaN);
      if (req.method === "PATCH" && declared > 0 && !files.reserve.allows(declared))
        throw refusal(files.reserve.refusal());
    },
    async onUploadCreate(req, upload) {
      const actor = actorFor(req);
      const meta = upload.metadata ?? {};
      try {
        if (!meta.filename) throw new AppError("VALIDATION", "Upload-Metadata needs a filename");
        files.checkDestination(actor, meta.parent_id || null, meta.filename);
        if (upload.size !== undefined) files.reserve.admit(upload.size);
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
          // Linked into the store, not copied: a 40 GB film needs its 40 GB once, not twice.
          source: { file: join(directory, upload.id) },
          ...(meta.sha256 ? { expectedSha256: meta.sha256 } : {}),
        });
        return { headers: { "Upload-File-Id": file.id } };
      } catch (err) {
        await store.remove(upload.id).catch(() => {});
        throw refusal(err);
      }
    },
    // What fails outside our hooks (a full disk mid-PATCH) answers like the rest of the API, not
    // with the library's 500 and the system's message.
    onResponseError(_req, err) {
      if ("status_code" in err) return undefined;
      const known = fromSystemError(err);
      if (!known) ctx.log.error({ err }, "resumable upload failed");
      return refusal(known ?? err);
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
    r.all(path, async (c) => {
      actors.set(c.req.raw, actorOf(c));
      const res = await asApiError(await tus.handleWeb(c.req.raw), c.req.method);
      return c.req.method === "PATCH" ? withExpiry(res, store, c.req.path) : res;
    });
  }
  return r;
}
