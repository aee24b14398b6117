import { createReadStream, rmSync, writeFileSync } from "node:fs";
import { readFile } from "node:fs/promises";
import type { Readable } from "node:stream";

/**
 * Reading and writing whole local files for the domain (file content it
 * serves, the first-start password file), so domain code never calls node:fs.
 */

/** A stream of a file's bytes `start..end` (inclusive), or all of them; 256 KiB reads. */
export function readStream(path: string, range?: { start: number; end: number }): Readable {
  // 256 KiB reads: few syscalls per megabyte, modest memory per connection.
  return createReadStream(path, { highWaterMark: 256 * 1024, ...range });
}

/** A file's whole bytes (callers bound the size first). */
export function readBytes(path: string): Promise<Buffer> {
  return readFile(path);
}

/** A file's whole text as UTF-8 (callers bound the size first). */
export function readUtf8(path: string): Promise<string> {
  return readFile(path, "utf8");
}

/** A fresh file readable by its owner only (a leftover file keeps its old mode if merely overwritten). */
export function writePrivateFile(path: string, content: string): void {
  rmSync(path, { force: true });
  writeFileSync(path, content, { mode: 0o600, flag: "wx" });
}
