import { createHash, randomBytes } from "node:crypto";
import { createReadStream, createWriteStream, mkdirSync, readdirSync, rmSync } from "node:fs";
import { chmod, link, mkdir, open, readdir, rename, stat, unlink, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { Transform } from "node:stream";
import { pipeline } from "node:stream/promises";
import { AppError } from "../errors.ts";
import { CHECK_EVERY_BYTES, type SpaceReserve } from "./disk-space.ts";

/** Bytes kept from the start of every staged blob, enough for content sniffing. */
export const HEAD_BYTES = 4100;

/** Content written to a temp file and hashed, not yet in the store. */
export interface StagedBlob {
  /** Lowercase hex SHA-256. */
  hash: string;
  size: number;
  /** The first HEAD_BYTES bytes, for MIME sniffing. */
  head: Buffer;
  tempPath: string;
}

const HASH = /^[0-9a-f]{64}$/;
/** How many blob paths pathOf keeps (about 1 MiB); all are forgotten when it is full. */
const PATHS_KEPT = 4096;

/**
 * Content-addressed storage under DATA_DIR/blobs/ab/cd/<sha256>, with temp
 * files under DATA_DIR/tmp. Writes are crash-safe: stream to a temp file
 * while hashing, fsync it, rename into place, fsync the directory. A crash
 * leaves at worst a temp file, which `sweepTemp()` removes at start-up; a
 * blob is never visible half-written. Identical content is stored once.
 */
export class BlobStore {
  readonly blobsDir: string;
  readonly tmpDir: string;
  /**
   * One empty file per blob between its commit and the release that follows
   * its row's insert: the only blobs a crash can orphan. Start-up checks
   * these, never the whole store, so its cost does not grow with the library.
   * Not fsynced: a process crash keeps them (page cache); a power cut at the
   * wrong instant can at worst leave one orphan blob (space, never data).
   */
  readonly pendingDir: string;
  /** Hashes between commit and their row's insert: reclaim must not delete them. */
  private readonly held = new Map<string, number>();
  private readonly locks = new Map<string, Promise<unknown>>();
  private readonly paths = new Map<string, string>();

  constructor(dataDir: string) {
    this.blobsDir = join(dataDir, "blobs");
    this.tmpDir = join(dataDir, "tmp");
    this.pendingDir = join(dataDir, "blobs-pending");
    mkdirSync(this.blobsDir, { recursive: true, mode: 0o750 });
    mkdirSync(this.pendingDir, { recursive: true, mode: 0o750 });
    mkdirSync(this.tmpDir, { recursive: true, mode: 0o750 });
  }

  /**
   * Where the blob of `hash` lives (whether or not it exists). The paths of
   * recent hashes are kept (PATHS_KEPT): each download asks, and checking and
   * joining a path was ~1 µs of a 4 KiB download's ~50.
   */
  pathOf(hash: string): string {
    let path = this.paths.get(hash);
    if (path === undefined) {
      if (!HASH.test(hash)) throw new AppError("INTERNAL", "invalid blob hash");
      path = join(this.blobsDir, hash.slice(0, 2), hash.slice(2, 4), hash);
      if (this.paths.size >= PATHS_KEPT) this.paths.clear();
      this.paths.set(hash, path);
    }
    return path;
  }

  /**
   * Removes every temp file: run at start-up, before any upload, so a crash
   * mid-upload leaves nothing behind. Returns how many were removed.
   */
  sweepTemp(): number {
    const names = readdirSync(this.tmpDir);
    for (const n of names) rmSync(join(this.tmpDir, n), { force: true, recursive: true });
    return names.length;
  }

  private tempPath(): string {
    return join(this.tmpDir, `${Date.now()}-${randomBytes(8).toString("hex")}.part`);
  }

  /**
   * Streams `source` to a temp file, hashing and counting as it goes; the
   * file is fsynced before this resolves. Over `maxBytes` (0 = no limit) it
   * stops at once with 413; once the free space falls below `reserve`'s
   * (looked at every 8 MiB), with 507. On any failure the temp file is
   * removed.
   */
  async stage(
    source: AsyncIterable<Uint8Array>,
    opts: { maxBytes?: number; reserve?: SpaceReserve } = {},
  ): Promise<StagedBlob> {
    const tempPath = this.tempPath();
    const sha = createHash("sha256");
    const headChunks: Buffer[] = [];
    let headLen = 0;
    let size = 0;
    const max = opts.maxBytes ?? 0;
    const reserve = opts.reserve;
    let nextCheck = CHECK_EVERY_BYTES;
    // A Transform, not an async generator: no promise per chunk on the hot path.
    const meter = new Transform({
      transform(chunk: Buffer, _enc, done) {
        size += chunk.byteLength;
        if (max > 0 && size > max)
          return done(new AppError("PAYLOAD_TOO_LARGE", `upload exceeds ${max} bytes`));
        if (reserve && size >= nextCheck) {
          nextCheck = size + CHECK_EVERY_BYTES;
          if (!reserve.allows(0)) return done(reserve.refusal());
        }
        sha.update(chunk);
        if (headLen < HEAD_BYTES) {
          const part = chunk.subarray(0, HEAD_BYTES - headLen);
          headChunks.push(Buffer.from(part));
          headLen += part.byteLength;
        }
        done(null, chunk);
      },
    });
    try {
      // A deep write buffer lets socket reads and disk writes overlap instead of taking turns.
      const sink = createWriteStream(tempPath, {
        flags: "wx",
        mode: 0o640,
        flush: true,
        highWaterMark: 4 << 20,
      });
      await pipeline(source, meter, sink);
    } catch (err) {
      await unlink(tempPath).catch(() => {});
      throw err;
    }
    return { hash: sha.digest("hex"), size, head: Buffer.concat(headChunks), tempPath };
  }

  /**
   * Stages the bytes of `path`, a finished file on the data directory's file
   * system (a resumable upload's), without copying them: a hard link in the
   * temp directory, hashed by reading it once. `path` itself is left as it
   * is: a crash before the row's commit loses nothing of it. Where a link
   * cannot be made (another file system), the bytes are copied with
   * `stage`.
   */
  async adopt(path: string, opts: { maxBytes?: number; reserve?: SpaceReserve } = {}): Promise<StagedBlob> {
    const tempPath = this.tempPath();
    try {
      await link(path, tempPath);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code === "EXDEV" || code === "EPERM" || code === "EMLINK" || code === "ENOTSUP")
        return this.stage(createReadStream(path), opts);
      throw err;
    }
    try {
      const { size } = await stat(tempPath);
      const max = opts.maxBytes ?? 0;
      if (max > 0 && size > max) throw new AppError("PAYLOAD_TOO_LARGE", `upload exceeds ${max} bytes`);
      await chmod(tempPath, 0o640);
      const sha = createHash("sha256");
      const headChunks: Buffer[] = [];
      let headLen = 0;
      for await (const chunk of createReadStream(tempPath, {
        highWaterMark: 1 << 20,
      }) as AsyncIterable<Buffer>) {
        sha.update(chunk);
        if (headLen < HEAD_BYTES) {
          const part = chunk.subarray(0, HEAD_BYTES - headLen);
          headChunks.push(Buffer.from(part));
          headLen += part.byteLength;
        }
      }
      return { hash: sha.digest("hex"), size, head: Buffer.concat(headChunks), tempPath };
    } catch (err) {
      await unlink(tempPath).catch(() => {});
      throw err;
    }
  }

  /**
   * Moves a staged blob into the store (or drops it when identical content is
   * already there) and makes the rename durable. The hash stays held, safe
   * from `reclaim`, until `release(hash)`.
   */
  async commit(staged: StagedBlob): Promise<void> {
    this.hold(staged.hash);
    try {
      await writeFile(join(this.pendingDir, staged.hash), "");
      await this.locked(staged.hash, () => this.place(staged));
    } catch (err) {
      this.release(staged.hash);
      await unlink(staged.tempPath).catch(() => {});
      throw err;
    }
  }

  private async place(staged: StagedBlob): Promise<void> {
    const target = this.pathOf(staged.hash);
    if (await exists(target)) {
      await unlink(staged.tempPath).catch(() => {});
      return;
    }
    const dir = dirname(target);
    const created = await mkdir(dir, { recursive: true, mode: 0o750 });
    await rename(staged.tempPath, target);
    await fsyncPath(dir);
    if (created) {
      await fsyncPath(dirname(dir));
      await fsyncPath(this.blobsDir);
    }
  }

  /** Runs `fn` with no other commit or reclaim of `hash` in progress. */
  private async locked<T>(hash: string, fn: () => Promise<T>): Promise<T> {
    const prev = this.locks.get(hash) ?? Promise.resolve();
    const run = prev.then(fn, fn);
    const tail = run.catch(() => {});
    this.locks.set(hash, tail);
    try {
      return await run;
    } finally {
      if (this.locks.get(hash) === tail) this.locks.delete(hash);
    }
  }

  /** Removes a staged blob that will not be committed. */
  async discard(staged: StagedBlob): Promise<void> {
    await unlink(staged.tempPath).catch(() => {});
  }

  /** Protects `hash` from `reclaim` (counted; pair with `release`). */
  hold(hash: string): void {
    this.held.set(hash, (this.held.get(hash) ?? 0) + 1);
  }

  release(hash: string): void {
    const n = (this.held.get(hash) ?? 1) - 1;
    if (n > 0) {
      this.held.set(hash, n);
      return;
    }
    this.held.delete(hash);
    // Its row is written (or it will be reclaimed now): no longer pending.
    if (HASH.test(hash)) void unlink(join(this.pendingDir, hash)).catch(() => {});
  }

  /**
   * Hashes committed before a stop whose release never came: the blobs a
   * crash between a blob's rename and its row's commit may have orphaned.
   * `forget` drops the marker once the caller has dealt with the blob.
   */
  async pending(): Promise<string[]> {
    const names = await readdir(this.pendingDir).catch(() => [] as string[]);
    return names.filter((n) => HASH.test(n));
  }

  async forgetPending(hash: string): Promise<void> {
    // Held: an upload of the same content is in flight now; its release forgets it.
    if (HASH.test(hash) && !this.held.has(hash)) await unlink(join(this.pendingDir, hash)).catch(() => {});
  }

  /**
   * Deletes the blob of `hash` when `isUnused()` (asked under the hash's
   * lock, so no commit of the same content interleaves) says no row needs it
   * and no upload holds it; `onRemoved` runs under the same lock.
   */
  async reclaim(hash: string, isUnused: () => boolean, onRemoved?: () => void): Promise<boolean> {
    return this.locked(hash, async () => {
      if (this.held.has(hash) || !isUnused()) return false;
      await unlink(this.pathOf(hash)).catch((err: NodeJS.ErrnoException) => {
        if (err.code !== "ENOENT") throw err;
      });
      onRemoved?.();
      return true;
    });
  }

  /** True when a blob of `hash` is stored. */
  has(hash: string): Promise<boolean> {
    return exists(this.pathOf(hash));
  }
}

async function exists(path: string): Promise<boolean> {
  try {
    await stat(path);
    return true;
  } catch {
    return false;
  }
}

/** fsync of a file or directory by path: its contents (or entries) reach the disk before this resolves. */
export async function fsyncPath(path: string): Promise<void> {
  const fh = await open(path, "r");
  try {
    await fh.sync();
  } finally {
    await fh.close();
  }
}
