import type { Readable } from "node:stream";
import { AppError } from "../../errors.ts";
import type { Logger } from "../../log.ts";
import type { BlobStore } from "../../platform/blobstore.ts";
import { fileStream } from "../../platform/local-files.ts";
import { openForRead, type ReadableFile } from "../../platform/open-files.ts";
import type { FileRow, FilesRepo } from "./files.repo.ts";

/** Where a file's bytes are on disk right now. */
export interface ContentLocation {
  /**
   * A real path (no symlink in it): a blob's, or a host file's proven inside
   * its folder. Opened only through OpenedContent.open, which checks the
   * opened descriptor is still the file it names.
   */
  path: string;
  size: number;
  mtimeMs: number;
  /** The bytes at `path` never change (a content-addressed blob), so an open descriptor may be reused. */
  immutable?: boolean;
}

/**
 * Finds the host file behind a watched-folder row (rows with
 * `watched_folder_id`). Registered by the watched-folders area through
 * `FilesService.setHostContentResolver`; it must refuse paths that escape
 * the folder and throw AppError (404 when the host file is gone).
 */
export type HostContentResolver = (row: FileRow) => Promise<ContentLocation>;

/** The bytes of one live file, ready to stream in whole or by range. */
export interface OpenedContent {
  row: FileRow;
  size: number;
  /** Strong validator: the content hash, quoted (or size+mtime for not-yet-hashed host files). */
  etag: string;
  lastModified: Date;
  /** See ContentLocation.immutable. */
  immutable: boolean;
  /**
   * Opens the bytes for reading: every reader (download, preview, copy,
   * zip, sharp, ffmpeg, music tags) reads this one descriptor, which is
   * proved to be the file at the checked real path (openForRead), never the
   * path opened again, which a symlink swapped in since could send outside
   * the watched folder. 404 when the file is gone or no longer there. The
   * caller releases it.
   */
  open(): Promise<ReadableFile>;
  /** A stream of bytes `start..end` (inclusive), or all of them (opened as `open` does). */
  stream(range?: { start: number; end: number }): Readable;
}

/** Resolves where `row`'s content lives: its blob, or the host file through `host`. */
export async function locateContent(
  row: FileRow,
  blobs: BlobStore,
  host: HostContentResolver | undefined,
  opts: { verify?: boolean } = {},
): Promise<ContentLocation> {
  if (row.blob_hash) {
    // A row's content never changes after upload, so its creation time is the modification time.
    const path = blobs.pathOf(row.blob_hash);
    // Checked before any header is sent, so a lost blob is a clean 404 rather than a cut-off body.
    // Downloads skip it (verify: false): they open the file before the head, which checks the same.
    if (opts.verify !== false && !(await blobs.has(row.blob_hash)))
      throw new AppError("FILE_NOT_FOUND", "the stored content is missing");
    return { path, size: row.size, mtimeMs: Date.parse(row.created_at), immutable: true };
  }
  if (row.watched_folder_id) {
    if (row.is_offline) throw new AppError("UNAVAILABLE", "the drive holding this file is offline");
    if (!host) throw new AppError("UNAVAILABLE", "watched folders are not available");
    return host(row);
  }
  throw new AppError("FILE_NOT_FOUND", "file has no content");
}

/**
 * A file's strong entity tag: the first 128 bits of its SHA-256 (as safe a
 * validator as the whole hash, and short enough for clients that cap header
 * lengths, such as WebDAV `If` headers), or size and mtime while a watched
 * file is not hashed yet. A watched file's hash names the bytes it was
 * computed from, so it is the tag only while the file served (`size`,
 * `mtimeMs`) still has the size and mtime its row recorded: a host file
 * edited in place keeps its row's old hash until the next sync sees the
 * change (a debounce on a local disk, up to the next full rescan on a
 * network mount, where the host sends no events), and answering that hash
 * meanwhile gave a 304 for the old bytes, an If-Range 206 of new bytes
 * spliced onto a client's old copy, and old thumbnails and conversions
 * (keyed by the tag).
 */
export function entityTag(
  row: Pick<FileRow, "hash" | "size" | "host_mtime_ms">,
  size: number,
  mtimeMs: number,
): string {
  // Stored content (no host mtime) never changes under its row.
  const current =
    row.host_mtime_ms === null || (size === row.size && Math.trunc(mtimeMs) === row.host_mtime_ms);
  return `"${row.hash && current ? row.hash.slice(0, 32) : `${size.toString(16)}-${Math.floor(mtimeMs).toString(16)}`}"`;
}

/** Wraps a location as OpenedContent. */
export function openedContent(row: FileRow, loc: ContentLocation): OpenedContent {
  return {
    row,
    size: loc.size,
    etag: entityTag(row, loc.size, loc.mtimeMs),
    lastModified: new Date(Math.floor(loc.mtimeMs / 1000) * 1000),
    immutable: loc.immutable === true,
    open: () => openLocation(loc),
    stream: (range) => fileStream(() => openLocation(loc), range),
  };
}

/** Opens a location's bytes (see OpenedContent.open); a file gone or moved is 404. */
async function openLocation(loc: ContentLocation): Promise<ReadableFile> {
  try {
    return await openForRead(loc.path, { reuse: loc.immutable === true });
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === "ENOENT" || code === "ENOTDIR" || code === "ELOOP")
      throw new AppError("FILE_NOT_FOUND", "the stored content is missing", undefined, { cause: err });
    throw err;
  }
}

/**
 * Deletes the blob of `hash` and its record when no row of any organization
 * uses it any more (blobs are shared across organizations by content).
 * Failures are logged, not thrown: an orphan blob costs space, not correctness.
 */
export async function reclaimUnused(
  repo: FilesRepo,
  blobs: BlobStore,
  log: Logger,
  hash: string,
): Promise<void> {
  await blobs
    .reclaim(
      hash,
      () => !repo.blobInUse(hash),
      () => repo.removeBlob(hash),
    )
    .catch((err) => log.warn({ err, hash }, "could not remove an unused blob"));
}

/** Runs `use` on the content opened (OpenedContent.open), releasing it however `use` ends. */
export async function withOpened<T>(
  content: Pick<OpenedContent, "open">,
  use: (file: ReadableFile) => Promise<T>,
): Promise<T> {
  const file = await content.open();
  try {
    return await use(file);
  } finally {
    file.release();
  }
}
