// busboy 1.6 rather than its fork @fastify/busboy: 1.6 has no open advisory and its parser is
// done (no release needed since 2022); the fork keeps the older 0.x event API, and moving would
// change how truncated, malformed and aborted bodies surface here, which the upload, abort and
// hostile-client suites pin down. Revisit if an advisory lands in busboy and not in the fork.
import busboy from "busboy";
import type { AppContext } from "../context.ts";
import type { FileDto } from "../domain/files/files.dto.ts";
import { AppError } from "../errors.ts";
import { actorOf, type Ctx } from "./env.ts";

/** Multipart framing and small fields allowed on top of the file itself. */
const ENVELOPE_BYTES = 64 * 1024;

type Fields = Record<string, string>;

/** A fixed destination (a share link's drop folder), and whether a taken name gets a number (UploadInput.freshName). */
export interface DropInto {
  parentId: string;
  freshName?: boolean;
}

/** parent_id or its variant directory_id, from the form or the query string. */
function parentOf(fields: Fields, c: Ctx): string | undefined {
  return fields.parent_id ?? fields.directory_id ?? c.req.query("parent_id") ?? c.req.query("directory_id");
}

/**
 * Streams a `multipart/form-data` upload (field `file`, optional
 * `parent_id`/`directory_id` and `sha256`) from the Node request straight
 * into FilesService.upload: no buffering, busboy parses as bytes arrive.
 * Fields may come before or after the file; before is better, since then a
 * bad destination is refused before the body is read. A body whose declared
 * length is over the limit is refused at once (413), and one that would
 * cross the storage reserve (507).
 */
export function receiveUpload(ctx: AppContext, c: Ctx, into?: DropInto): Promise<FileDto> {
  try {
    checkEnvelope(ctx, c);
    return parse(ctx, c, makeParser(c), into);
  } catch (err) {
    return Promise.reject(err);
  }
}

/** Refuses what is not a multipart form, and bodies declared over the limit, before reading. */
function checkEnvelope(ctx: AppContext, c: Ctx): void {
  if (!/^multipart\/form-data\b/i.test(c.req.header("content-type") ?? "")) {
    throw new AppError("VALIDATION", "expected a multipart/form-data body with a `file` field");
  }
  const max = ctx.cfg.storage.max_upload_bytes;
  const declared = Number(c.req.header("content-length") ?? Number.NaN);
  if (max > 0 && declared > max + ENVELOPE_BYTES) {
    throw new AppError("PAYLOAD_TOO_LARGE", `upload exceeds ${max} bytes`);
  }
  // The form's framing counts too: a few hundred bytes, against a reserve of megabytes.
  if (declared > 0) ctx.services.files.reserve.admit(declared);
}

function makeParser(c: Ctx): busboy.Busboy {
  try {
    return busboy({
      headers: c.env.incoming.headers as busboy.BusboyConfig["headers"],
      defParamCharset: "utf8",
      // The filename as sent: busboy would otherwise cut "a/b.txt" or "..\\x" to its last
      // segment and store it silently; normalizeName refuses such names (400) instead.
      preservePath: true,
      highWaterMark: 1 << 20,
      fileHwm: 1 << 20,
      limits: { files: 1, fields: 20, fieldSize: 16 * 1024, parts: 30 },
    });
  } catch (err) {
    throw new AppError("VALIDATION", "malformed multipart/form-data header", undefined, { cause: err });
  }
}

/**
 * Feeds the request through busboy; the first `file` part streams into
 * FilesService.upload. `into` fixes the destination whatever the form says
 * (a share link's drop folder).
 */
function parse(ctx: AppContext, c: Ctx, bb: busboy.Busboy, into?: DropInto): Promise<FileDto> {
  const req = c.env.incoming;
  const fields: Fields = {};
  let started = false;
  const finished = Promise.withResolvers<Fields>();
  finished.promise.catch(() => {});
  const sha256 = (f: Fields) => c.req.header("x-content-sha256") ?? f.sha256;
  return new Promise<FileDto>((resolve, reject) => {
    bb.on("field", (name, value) => {
      fields[name] = value;
    });
    bb.on("file", (name, stream, info) => {
      if (name !== "file" || started) return void stream.resume();
      started = true;
      // If the upload is refused before it reads the stream, a later teardown must not crash the process.
      stream.on("error", () => {});
      const early = into ? into.parentId : parentOf(fields, c);
      ctx.services.files
        .upload(actorOf(c), {
          name: info.filename ?? "",
          parentId: early,
          expectedSha256: sha256(fields),
          freshName: into?.freshName,
          source: stream,
          late: async () => {
            const all = await finished.promise;
            return { parentId: early ?? parentOf(all, c), expectedSha256: sha256(all) };
          },
        })
        .then(resolve, reject);
    });
    bb.on("close", () => {
      finished.resolve(fields);
      if (!started) reject(new AppError("VALIDATION", "the form has no `file` field"));
    });
    bb.on("error", (err) => {
      finished.reject(err);
      if (!started)
        reject(new AppError("VALIDATION", "malformed multipart/form-data body", undefined, { cause: err }));
    });
    // A client that goes away mid-body: tear busboy down so the file stream errors and nothing is kept.
    req.on("close", () => {
      if (!req.complete) bb.destroy(new Error("client closed the connection during upload"));
    });
    req.pipe(bb);
  });
}
