import { statfsSync } from "node:fs";
import { Transform } from "node:stream";
import { AppError } from "../errors.ts";

/** Free bytes on the file system of `dir` for the caller (f_bavail); undefined when it cannot be read. */
function statFree(dir: string): number | undefined {
  try {
    const s = statfsSync(dir);
    return s.bavail * s.bsize;
  } catch {
    return undefined;
  }
}

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
    value = statFree(dir) ?? 0;
    at = now;
    return value;
  };
}

/** How many bytes a guarded stream writes between two looks at the free space. */
export const CHECK_EVERY_BYTES = 8 << 20;

/**
 * The free space every write of content leaves on the data directory's file
 * system (`storage.min_free_bytes`). A disk filled to the last byte stops
 * every write of the server, the database's included, for every user: one
 * member's upload could otherwise do that, and a resumable upload kept its
 * bytes for a day. Uploads that declare their size are refused up front
 * (507) when they would cross the reserve; every stream of content looks at
 * the free space again every 8 MiB and stops with 507 once it is crossed.
 * The database itself may still use the reserve (rows, WAL).
 */
export class SpaceReserve {
  readonly dir: string;
  readonly minFreeBytes: number;

  constructor(dir: string, minFreeBytes: number) {
    this.dir = dir;
    this.minFreeBytes = minFreeBytes;
  }

  /** Free bytes now; undefined when the file system cannot tell. */
  free(): number | undefined {
    return statFree(this.dir);
  }

  /** Whether `bytes` more content would still leave the reserve free (an unreadable file system does not refuse). */
  allows(bytes: number): boolean {
    if (this.minFreeBytes <= 0) return true;
    const free = this.free();
    return free === undefined || free - bytes >= this.minFreeBytes;
  }

  /** Throws 507 unless `bytes` more content leave the reserve free. */
  admit(bytes: number): void {
    if (!this.allows(bytes)) throw this.refusal();
  }

  refusal(): AppError {
    return new AppError(
      "INSUFFICIENT_STORAGE",
      `not enough storage space: the server keeps ${formatBytes(this.minFreeBytes)} free (storage.min_free_bytes)`,
    );
  }

  /**
   * A pass-through that fails with 507 once the free space falls below the
   * reserve, looked at every CHECK_EVERY_BYTES it passes (one statfs).
   */
  guard(): Transform {
    let sinceCheck = 0;
    return new Transform({
      transform: (chunk: Buffer, _enc, done) => {
        sinceCheck += chunk.byteLength;
        if (sinceCheck >= CHECK_EVERY_BYTES) {
          sinceCheck = 0;
          if (!this.allows(0)) return done(this.refusal());
        }
        done(null, chunk);
      },
    });
  }
}

/** 268435456 -> "256 MiB". */
function formatBytes(n: number): string {
  const units = ["bytes", "KiB", "MiB", "GiB", "TiB"];
  let i = 0;
  let v = n;
  while (v >= 1024 && i < units.length - 1 && Number.isInteger(v / 1024)) {
    v /= 1024;
    i++;
  }
  return `${v} ${units[i]}`;
}
