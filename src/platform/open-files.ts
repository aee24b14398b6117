import { close, constants, fstat, open, read, readlink, readSync } from "node:fs";

/** A file open for positional reads; `release()` once done (more calls are ignored). */
export interface ReadableFile {
  readonly fd: number;
  /**
   * Reads up to `length` bytes at `position` into the start of `buf`: on the
   * event loop when that is known to be cheap (see readWarm), else through
   * the thread pool as readAt does. Answers the count read, or a promise of it.
   */
  read(buf: Buffer, length: number, position: number): number | Promise<number>;
  release(): void;
}

/**
 * A path naming the very file `file` has open (Linux's /proc/self/fd), for
 * libraries in this process that open by path (sharp, music-metadata,
 * file-type): opening it opens the same file again, wherever that file is
 * now and whatever its old path names since, so the check made on the
 * descriptor holds for what they read. Valid while `file` is held.
 */
export function pathOfOpen(file: Pick<ReadableFile, "fd">): string {
  return `/proc/self/fd/${file.fd}`;
}

/** Files kept open for reuse at most; past it, idle ones are closed at once. */
const MAX_KEPT = 128;
/** A kept file unused this long is closed (ms). */
const IDLE_MS = 10_000;

interface Kept {
  fd: number;
  refs: number;
  idleSince: number;
  /** A read of it has completed since it was opened, and none of its reads on the event loop was slow. */
  warm: boolean;
}

const kept = new Map<string, Kept>();
/** Opens under way, with how many callers wait for each. */
interface Opening {
  promise: Promise<Kept>;
  waiters: number;
}
const opening = new Map<string, Opening>();
let sweeper: NodeJS.Timeout | undefined;

const ignore = () => {};

/**
 * Opens `path` for reading. With `reuse`, for files that never change
 * once written (content-addressed blobs), the descriptor is kept and shared
 * by concurrent and later readers (reads are positional, so they never
 * disturb each other) until it has been idle for 10 s: a 4 KiB download or a
 * player's range request then costs one read instead of open, read and close,
 * each a round trip through libuv's thread pool. A blob deleted meanwhile
 * keeps its disk space until its descriptor is closed, 10 s at most.
 * Anything that may change in place (a watched folder's host files) is
 * opened afresh (`reuse: false`) and closed on release. Such a path must be
 * a real path (no symlink in it: the host file resolver's, proven inside its
 * folder), and the descriptor must still be the file it names: a component
 * swapped for a symlink since the path was checked (a user of a network
 * share racing the download) would otherwise open what the link points at,
 * outside the folder. That is refused as if the file were gone (ENOENT).
 * So is anything but a regular file found there: it is opened non-blocking,
 * since a FIFO swapped in would hold a thread of libuv's small pool until
 * someone wrote to it (four such downloads stall every file operation).
 */
export async function openForRead(path: string, opts: { reuse: boolean }): Promise<ReadableFile> {
  if (!opts.reuse) {
    const fd = await openFd(path, constants.O_RDONLY | constants.O_NONBLOCK);
    const [opened, regular] = await Promise.all([
      fdPath(fd).catch(() => undefined),
      isRegular(fd).catch(() => false),
    ]);
    if (opened !== path || !regular) {
      close(fd, ignore);
      throw Object.assign(new Error(`${path} changed since it was checked`), { code: "ENOENT" });
    }
    let open = true;
    return {
      fd,
      read: (buf, length, position) => readAt(fd, buf, length, position),
      release() {
        if (open) close(fd, ignore);
        open = false;
      },
    };
  }
  const known = kept.get(path);
  if (known) {
    known.refs++;
    return handleOf(known);
  }
  let op = opening.get(path);
  if (!op) {
    const started: Opening = {
      waiters: 0,
      promise: openFd(path).then(
        (fd) => {
          opening.delete(path);
          // Every caller waiting for this open already holds it: the file is never idle between
          // its open and its first reads, so the bound below cannot close it under them.
          const k: Kept = { fd, refs: started.waiters, idleSince: Date.now(), warm: false };
          kept.set(path, k);
          if (kept.size > MAX_KEPT) closeIdle(0);
          sweeper ??= setInterval(() => closeIdle(IDLE_MS), IDLE_MS).unref();
          return k;
        },
        (err: unknown) => {
          opening.delete(path);
          throw err;
        },
      ),
    };
    op = started;
    opening.set(path, op);
  }
  op.waiters++;
  return handleOf(await op.promise);
}

/** A hold on `k`, already counted in its refs. */
function handleOf(k: Kept): ReadableFile {
  let held = true;
  return {
    fd: k.fd,
    read: (buf, length, position) => readWarm(k, buf, length, position),
    release() {
      if (!held) return;
      held = false;
      k.refs--;
      k.idleSince = Date.now();
    },
  };
}

/** Reads of at most this many bytes may run on the event loop (a pumpOnce read: 256 KiB at most). */
const SYNC_MAX = 256 * 1024;
/** A read on the event loop slower than this (ms) came from the disk, not from memory. */
let slowSyncMs = 1;
/** How long (ms) reads stay off the event loop after a slow one; doubles while slow ones follow, up to PAUSE_MAX_MS. */
const PAUSE_MIN_MS = 1000;
const PAUSE_MAX_MS = 60_000;
let pauseMs = PAUSE_MIN_MS;
/** performance.now() until which every read goes through the thread pool. */
let pausedUntil = 0;

/**
 * A read of a kept (immutable) file. A read of a file that was read a
 * moment ago comes from the page cache: on the event loop it is a copy
 * (~1 µs per 4 KiB, ~50 µs per 256 KiB here), where the thread pool's round
 * trip costs more than a small copy (on one CPU, two context switches a
 * read: ~20 % of a 4 KiB download's CPU, profiled). So a kept file's reads
 * run on the event loop once one of its reads has completed (the first one,
 * through the pool, brought its pages in), as long as they stay fast. A read that turns out
 * slow (a range of a big file not in memory, a disk under other load) sends
 * that file back to the pool until a pooled read of it completes, and every
 * file's reads to the pool for a second, doubling while slow ones follow
 * (at most a minute): the event loop waits for the disk at most once per
 * pause, never for a disk that had time to spin down (kept files are closed
 * after 10 s idle). nginx, by default, reads on its event loop always.
 */
function readWarm(k: Kept, buf: Buffer, length: number, position: number): number | Promise<number> {
  if (k.warm && length <= SYNC_MAX) {
    const start = performance.now();
    if (start >= pausedUntil) {
      const n = readSync(k.fd, buf, 0, length, position);
      const end = performance.now();
      if (end - start > slowSyncMs) {
        k.warm = false;
        // A slow read soon after the last pause ended doubles the next pause.
        pauseMs = end - pausedUntil < pauseMs * 2 ? Math.min(pauseMs * 2, PAUSE_MAX_MS) : PAUSE_MIN_MS;
        pausedUntil = end + pauseMs;
      }
      return n;
    }
  }
  return readAt(k.fd, buf, length, position).then((n) => {
    k.warm = true;
    return n;
  });
}

/**
 * Sets the duration (ms) past which a read on the event loop counts as slow
 * (for tests: 0 makes every one slow, Infinity none); answers the previous
 * one. Ends any pause under way.
 */
export function setSlowReadMs(ms: number): number {
  const before = slowSyncMs;
  slowSyncMs = ms;
  pausedUntil = 0;
  pauseMs = PAUSE_MIN_MS;
  return before;
}

/** Closes kept files nobody reads that have been idle at least `idleMs`. */
function closeIdle(idleMs: number): void {
  const before = Date.now() - idleMs;
  for (const [path, k] of kept) {
    if (k.refs === 0 && k.idleSince <= before) {
      kept.delete(path);
      close(k.fd, ignore);
    }
  }
  if (kept.size === 0 && sweeper) {
    clearInterval(sweeper);
    sweeper = undefined;
  }
}

/** How many files are kept open for reuse (for tests). */
export function keptOpenCount(): number {
  return kept.size;
}

/** The path the kernel holds for an open descriptor (Linux's /proc/self/fd). */
function fdPath(fd: number): Promise<string> {
  return new Promise((resolve, reject) => {
    readlink(`/proc/self/fd/${fd}`, (err, target) => (err ? reject(err) : resolve(target)));
  });
}

function openFd(path: string, flags: number | string = "r"): Promise<number> {
  return new Promise((resolve, reject) => {
    open(path, flags, (err, fd) => (err ? reject(err) : resolve(fd)));
  });
}

function isRegular(fd: number): Promise<boolean> {
  return new Promise((resolve, reject) => {
    fstat(fd, (err, st) => (err ? reject(err) : resolve(st.isFile())));
  });
}

/** Reads up to `length` bytes at `position` into the start of `buf`; resolves with the count read. */
export function readAt(fd: number, buf: Buffer, length: number, position: number): Promise<number> {
  return new Promise((resolve, reject) => {
    read(fd, buf, 0, length, position, (err, n) => (err ? reject(err) : resolve(n)));
  });
}
