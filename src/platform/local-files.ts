import { rmSync, writeFileSync } from "node:fs";
import { Readable } from "node:stream";
import { type ReadableFile, readAt } from "./open-files.ts";

/**
 * Reading opened files and writing small local ones for the domain (file
 * content it serves, the first-start password file), so domain code never
 * calls node:fs. Reads take a file already opened and checked
 * (open-files.ts: non-blocking, regular, still at its checked real path),
 * never a path: a path opened again here could name another file by now.
 */

/** Read size of fileStream: few syscalls per megabyte, modest memory per connection. */
const STREAM_CHUNK = 256 * 1024;

/**
 * A stream of bytes `start..end` (inclusive), or all of them, of the file
 * `open` opens (called once, when the stream is first read); the file is
 * released when the stream ends or is destroyed. Reads are positional.
 */
export function fileStream(
  open: () => Promise<ReadableFile>,
  range?: { start: number; end: number },
): Readable {
  let file: ReadableFile | undefined;
  let pos = range?.start ?? 0;
  const end = range ? range.end + 1 : Number.POSITIVE_INFINITY;
  return new Readable({
    highWaterMark: STREAM_CHUNK,
    construct(cb) {
      open().then(
        (f) => {
          file = f;
          cb();
        },
        (err: Error) => cb(err),
      );
    },
    read() {
      const length = Math.min(STREAM_CHUNK, end - pos);
      if (length <= 0) {
        this.push(null);
        return;
      }
      const buf = Buffer.allocUnsafe(length);
      Promise.resolve((file as ReadableFile).read(buf, length, pos)).then(
        (n) => {
          pos += n;
          this.push(n === 0 ? null : buf.subarray(0, n));
        },
        (err: Error) => this.destroy(err),
      );
    },
    destroy(err, cb) {
      file?.release();
      file = undefined;
      cb(err);
    },
  });
}

/**
 * The first `max + 1` bytes of an opened file at most (callers bound the
 * size first; one byte more than `max` tells them it grew past it since).
 */
export async function readUpTo(file: ReadableFile, max: number): Promise<Buffer> {
  const parts: Buffer[] = [];
  let total = 0;
  while (total <= max) {
    const buf = Buffer.allocUnsafe(Math.min(STREAM_CHUNK, max + 1 - total));
    const n = await readAt(file.fd, buf, buf.length, total);
    if (n === 0) break;
    parts.push(buf.subarray(0, n));
    total += n;
  }
  return Buffer.concat(parts, total);
}

/** A fresh file readable by its owner only (a leftover file keeps its old mode if merely overwritten). */
export function writePrivateFile(path: string, content: string): void {
  rmSync(path, { force: true });
  writeFileSync(path, content, { mode: 0o600, flag: "wx" });
}
