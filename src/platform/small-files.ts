import { readFile } from "node:fs/promises";

/** Largest file kept whole in memory. */
export const SMALL_FILE_MAX = 64 * 1024;
/** Bytes kept at most, over all files. */
const TOTAL_MAX = 16 * 1024 * 1024;

const kept = new Map<string, Buffer>();
const loading = new Map<string, Promise<Buffer>>();
let total = 0;

/**
 * The bytes of a small file that never changes once written (a
 * content-addressed blob), from memory when read recently. A 4 KiB photo
 * or thumbnail request otherwise spends more in the read's round trip
 * through libuv's thread pool (two context switches on a one-CPU server,
 * ~20 µs here) than in the rest of the request. Only for `size` ≤
 * SMALL_FILE_MAX; at most 16 MiB in all, least recently used dropped first.
 * Rejects like readFile (ENOENT when the file is gone); a file whose length
 * is not `size` is not kept.
 */
export function readSmallImmutable(path: string, size: number): Buffer | Promise<Buffer> {
  const hit = kept.get(path);
  if (hit) {
    kept.delete(path);
    kept.set(path, hit);
    return hit;
  }
  let pending = loading.get(path);
  if (!pending) {
    pending = readFile(path).then(
      (buf) => {
        loading.delete(path);
        if (buf.length === size && size <= SMALL_FILE_MAX) keep(path, buf);
        return buf;
      },
      (err: unknown) => {
        loading.delete(path);
        throw err;
      },
    );
    loading.set(path, pending);
  }
  return pending;
}

function keep(path: string, buf: Buffer): void {
  while (total + buf.length > TOTAL_MAX && kept.size > 0) {
    const [oldest, b] = kept.entries().next().value as [string, Buffer];
    kept.delete(oldest);
    total -= b.length;
  }
  kept.set(path, buf);
  total += buf.length;
}
