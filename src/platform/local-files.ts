import { constants, createReadStream, rmSync, writeFileSync } from "node:fs";
import { readFile } from "node:fs/promises";
import type { Readable } from "node:stream";

/**
 * Reading and writing whole local files for the domain (file content it
 * serves, the first-start password file), so domain code never calls node:fs.
 */

/**
 * Opened non-blocking: a host file may have been swapped for a FIFO since
 * it was checked, and a blocking open would hold one of libuv's four pool
 * threads until someone wrote to it. On a regular file the flag changes
 * nothing; on a FIFO a read ends at once.
 */
const READ_FLAGS = constants.O_RDONLY | constants.O_NONBLOCK;

/** A stream of a file's bytes `start..end` (inclusive), or all of them; 256 KiB reads. */
export function readStream(path: string, range?: { start: number; end: number }): Readable {
  // 256 KiB reads: few syscalls per megabyte, modest memory per connection.
  // The stream opens with fs.open, which takes numeric flags; @types/node types this option as a string only.
  const flags = READ_FLAGS as unknown as string;
  return createReadStream(path, { highWaterMark: 256 * 1024, flags, ...range });
}

/** A file's whole bytes (callers bound the size first). */
export function readBytes(path: string): Promise<Buffer> {
  return readFile(path, { flag: READ_FLAGS });
}

/** A file's whole text as UTF-8 (callers bound the size first). */
export function readUtf8(path: string): Promise<string> {
  return readFile(path, { encoding: "utf8", flag: READ_FLAGS });
}

/** A fresh file readable by its owner only (a leftover file keeps its old mode if merely overwritten). */
export function writePrivateFile(path: string, content: string): void {
  rmSync(path, { force: true });
  writeFileSync(path, content, { mode: 0o600, flag: "wx" });
}
