import { statfsSync } from "node:fs";

/**
 * Free bytes on the file system of `dir` for the caller (f_bavail), read at
 * most once per `everyMs`: WebDAV clients ask for it with every listing.
 * 0 when it cannot be read.
 */
export function freeBytes(dir: string, everyMs = 10_000): () => number {
  let at = Number.NEGATIVE_INFINITY;
  let value = 0;
  return () => {
    const now = performance.now();
    if (now - at < everyMs) return value;
    try {
      const s = statfsSync(dir);
      value = s.bavail * s.bsize;
    } catch {
      value = 0;
    }
    at = now;
    return value;
  };
}
