import { AppError, fromSystemError } from "../../errors.ts";
import type { StagedBlob } from "../../platform/blobstore.ts";
import { isId, nowIso } from "../../platform/ids.ts";
import { type Actor, requirePermission } from "../actor.ts";
import { reclaimUnused } from "./content.ts";
import type { FilesDeps } from "./deps.ts";
import { type FileDto, toFileDto } from "./files.dto.ts";
import type { FileRow } from "./files.repo.ts";
import { detectMime } from "./mime.ts";
import { MAX_NAME_BYTES, normalizeName } from "./names.ts";

/** What an upload needs; the same for REST multipart and RPC client streaming. */
export interface UploadInput {
  name: string;
  /** Destination directory; null or undefined = top level (unless `late` supplies one). */
  parentId?: string | null;
  /** The bytes, consumed once. Throwing from it aborts the upload with nothing stored. */
  source: AsyncIterable<Uint8Array> | { file: string };
  /**
   * The size the client declared (Content-Length, Upload-Length), when it
   * did: refused up front (507) when it would cross the storage reserve.
   */
  declaredBytes?: number;
  /** Expected lowercase hex SHA-256; a mismatch is 400 and nothing is stored. */
  expectedSha256?: string;
  /**
   * Fields that arrive after the bytes (a multipart form with parent_id after
   * the file part): called once the source is fully read.
   */
  late?: () => Promise<{ parentId?: string | null; expectedSha256?: string }>;
  /**
   * A live file of that name is replaced (WebDAV PUT): it goes to the trash
   * in the same transaction the new row appears in. A directory of that
   * name is still 409.
   */
  replace?: boolean;
  /**
   * A name already taken gets a number instead of 409: `name (2).ext`, then
   * `(3)`, … (a share link's drop folder: its senders learn nothing of what
   * is in it, and two guests' `IMG_0001.jpg` both arrive).
   */
  freshName?: boolean;
}

const SHA256 = /^[0-9a-f]{64}$/;

/** A failure of the client's body (aborted, malformed) is 400; a full disk stays 507. */
function asUploadError(err: unknown): never {
  throw (
    fromSystemError(err) ??
    new AppError("VALIDATION", "upload aborted or malformed", undefined, { cause: err })
  );
}

/**
 * Builds the upload operation: checks the destination early when it is
 * known (so a 2 GB body is not read only to answer 409), streams the bytes
 * to a temp file while hashing (BlobStore.stage), checks the optional
 * SHA-256, commits the blob durably, then inserts the row. Any failure
 * leaves no row, no blob of its own and no temp file.
 */
export function createUpload(deps: FilesDeps) {
  const { repo, tree, blobs, metrics } = deps;

  function destination(
    actor: Actor,
    parentId: string | null | undefined,
    name: string,
    replace = false,
    freshName = false,
  ): FileRow | null {
    if (parentId !== undefined && parentId !== null && parentId !== "" && !isId(parentId)) {
      throw new AppError("VALIDATION", "parent_id must be a directory id", { parent_id: parentId });
    }
    const parent = tree.parent(actor, parentId || null);
    tree.writable(parent, "directory");
    if (freshName) return parent;
    const existing = replace ? repo.liveChild(actor.organizationId, parent?.id ?? null, name) : undefined;
    if (!existing || existing.type === "directory")
      tree.nameFree(actor.organizationId, parent?.id ?? null, name);
    return parent;
  }

  /** `name`, or the first of `name (2).ext`, `name (3).ext`, … no live child of `parentId` has. */
  function freeName(org: string, parentId: string | null, name: string): string {
    const dot = name.lastIndexOf(".");
    const [stem, ext] =
      dot > 0 && name.length - dot <= 32 ? [name.slice(0, dot), name.slice(dot)] : [name, ""];
    let candidate = name;
    for (let n = 2; repo.liveChild(org, parentId, candidate); n++) {
      const suffix = ` (${n})${ext}`;
      let chars = [...stem];
      // Still at most MAX_NAME_BYTES: the stem gives way.
      while (chars.length > 0 && Buffer.byteLength(chars.join("") + suffix) > MAX_NAME_BYTES)
        chars = chars.slice(0, -1);
      candidate = chars.join("") + suffix;
    }
    return candidate;
  }

  function checkHash(expected: string | undefined, staged: StagedBlob): void {
    if (expected === undefined || expected === "") return;
    const want = expected.trim().toLowerCase();
    if (!SHA256.test(want)) throw new AppError("VALIDATION", "sha256 must be 64 hex characters");
    if (want !== staged.hash) {
      throw new AppError("VALIDATION", "content does not match the expected SHA-256", {
        expected: want,
        actual: staged.hash,
      });
    }
  }

  /** A stream is written to a temp file; a finished file of the data directory's (`{file}`) is linked, not copied. */
  function stage(source: UploadInput["source"]): Promise<StagedBlob> {
    const opts = { maxBytes: deps.maxUploadBytes, reserve: deps.reserve };
    const staging = "file" in source ? blobs.adopt(source.file, opts) : blobs.stage(source, opts);
    return staging.catch(asUploadError);
  }

  function insertRow(
    actor: Actor,
    parent: FileRow | null,
    name: string,
    staged: StagedBlob,
    mime: string,
    replace = false,
    freshName = false,
  ): FileRow {
    const org = actor.organizationId;
    const now = nowIso();
    return tree.tx(() => {
      // Chosen inside the transaction, so no other upload takes the name meanwhile.
      if (freshName) name = freeName(org, parent?.id ?? null, name);
      const old = replace ? repo.liveChild(org, parent?.id ?? null, name) : undefined;
      if (old && old.type !== "directory") tree.softDeleteFile(actor, old);
      repo.addBlob(staged.hash, staged.size, now);
      const content = {
        type: "file",
        size: staged.size,
        mime_type: mime,
        hash: staged.hash,
        blob_hash: staged.hash,
      };
      const id = tree.insertChild(actor, parent, name, content, now);
      return repo.get(org, id) as FileRow;
    });
  }

  /** Stores one upload; resolves with the new File. */
  async function upload(actor: Actor, input: UploadInput): Promise<FileDto> {
    let mime = "unknown";
    try {
      requirePermission(actor, "file:write");
      const name = normalizeName(input.name);
      // Check a known destination before reading a possibly huge body.
      if (!input.late || input.parentId !== undefined)
        destination(actor, input.parentId, name, input.replace, input.freshName);
      if (input.declaredBytes !== undefined && !("file" in input.source))
        deps.reserve.admit(input.declaredBytes);
      const staged = await stage(input.source);
      let committed = false;
      try {
        const late = input.late ? await input.late().catch(asUploadError) : {};
        checkHash(late.expectedSha256 ?? input.expectedSha256, staged);
        const parentId = late.parentId !== undefined ? late.parentId : input.parentId;
        const parent = destination(actor, parentId, name, input.replace, input.freshName);
        mime = await detectMime(staged.head, name);
        await blobs.commit(staged);
        committed = true;
        const row = insertRow(actor, parent, name, staged, mime, input.replace, input.freshName);
        metrics.fileUploads.inc({ status: "success", mime_type: mime });
        return toFileDto(row);
      } catch (err) {
        if (committed) {
          blobs.release(staged.hash);
          committed = false;
          await reclaimUnused(repo, blobs, deps.log, staged.hash);
        } else await blobs.discard(staged);
        throw err;
      } finally {
        if (committed) blobs.release(staged.hash);
      }
    } catch (err) {
      metrics.fileUploads.inc({ status: "failure", mime_type: mime });
      throw err;
    }
  }

  /**
   * Checks a destination and name before any byte arrives (a resumable
   * upload's creation): the same rules as the upload itself will apply.
   */
  function checkDestination(actor: Actor, parentId: string | null | undefined, rawName: string): void {
    requirePermission(actor, "file:write");
    destination(actor, parentId, normalizeName(rawName));
  }

  return { upload, checkDestination };
}
