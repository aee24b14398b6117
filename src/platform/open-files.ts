import { close, open, read } from "node:fs";

/** A file open for positional reads; `release()` once done (more calls are ignored). */
export interface ReadableFile {
  readonly fd: number;
  release(): void;
}

/** Files kept open for reuse at most; past it, idle ones are closed at once. */
const MAX_KEPT = 128;
/** A kept file unused this long is closed (ms). */
const IDLE_MS = 10_000;

interface Kept {
  fd: number;
  refs: number;
  idleSince: number;
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
 * opened afresh (`reuse: false`) and closed on release.
 */
export async function openForRead(path: string, opts: { reuse: boolean }): Promise<ReadableFile> {
  if (!opts.reuse) {
    const fd = await openFd(path);
    let open = true;
    return {
      fd,
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
          const k: Kept = { fd, refs: started.waiters, idleSince: Date.now() };
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
    release() {
      if (!held) return;
      held = false;
      k.refs--;
      k.idleSince = Date.now();
    },
  };
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

function openFd(path: string): Promise<number> {
  return new Promise((resolve, reject) => {
    open(path, "r", (err, fd) => (err ? reject(err) : resolve(fd)));
  });
}

/** Reads up to `length` bytes at `position` into the start of `buf`; resolves with the count read. */
export function readAt(fd: number, buf: Buffer, length: number, position: number): Promise<number> {
  return new Promise((resolve, reject) => {
    read(fd, buf, 0, length, position, (err, n) => (err ? reject(err) : resolve(n)));
  });
}
