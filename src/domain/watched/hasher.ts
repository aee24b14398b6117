import { createHash } from "node:crypto";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import type { Logger } from "../../log.ts";
import { openConfined } from "../../platform/hostfs.ts";
import { runWorkers } from "../../platform/pool.ts";
import type { WatchedRepo } from "./watched.repo.ts";

const PAGE = 64;
/** Files up to this size are read in one call into one buffer, not through a read stream. */
const ONE_READ_BYTES = 256 * 1024;
/** How often (ms) a paused pass looks again. */
const PAUSE_POLL_MS = 250;

/** A hash ready to store, with the size and mtime of the bytes it was computed from. */
interface Hashed {
  id: string;
  hash: string;
  size: number;
  mtimeMs: number;
}

/**
 * Fills `hash` of a folder's files in the background, `concurrency` files
 * at a time, never on a request path. A hash is stored only if the row still
 * has the size and mtime of the bytes read (the file may change meanwhile).
 * One pass in host path order (files that fail are left for the next pass);
 * resolves at the end of it or when `signal` aborts. While `paused()` (a
 * folder is scanning: new files made visible come before hashes), it waits
 * before its next page.
 */
export async function hashPending(
  repo: WatchedRepo,
  folderId: string,
  root: string,
  opts: { concurrency: number; signal: AbortSignal; log: Logger; paused?: () => boolean },
): Promise<number> {
  let hashed = 0;
  let after = "";
  while (!opts.signal.aborted) {
    while (opts.paused?.() && !opts.signal.aborted) await sleep(PAUSE_POLL_MS);
    if (opts.signal.aborted) break;
    const rows = repo.unhashed(folderId, after, PAGE);
    if (rows.length === 0) break;
    after = rows[rows.length - 1]!.host_rel_path;
    let next = 0;
    const done: Hashed[] = [];
    const worker = async () => {
      while (next < rows.length && !opts.signal.aborted) {
        const row = rows[next++]!;
        const result = await hashOne(row, root).catch((err) => {
          opts.log.debug({ err, file: row.id }, "hashing a watched file failed");
          return undefined;
        });
        if (result) done.push(result);
      }
    };
    await runWorkers(opts.concurrency, worker);
    // A page's hashes in one transaction: one commit, and one emptying of the caches that follow
    // the database (listings, records), per 64 files instead of per file.
    hashed += repo.setHashes(done);
  }
  return hashed;
}

async function hashOne(
  row: { id: string; host_rel_path: string },
  root: string,
): Promise<Hashed | undefined> {
  const opened = await openConfined(join(root, row.host_rel_path), root);
  if (!opened) return undefined;
  try {
    const hash = createHash("sha256");
    if (opened.size <= ONE_READ_BYTES) {
      // Reads of up to a byte more than the size (usually one; a network file system may answer in
      // parts): a file that grew meanwhile fails the check below.
      const buf = Buffer.allocUnsafe(opened.size + 1);
      let filled = 0;
      for (;;) {
        const { bytesRead } = await opened.handle.read(buf, filled, buf.byteLength - filled, filled);
        filled += bytesRead;
        if (bytesRead === 0 || filled === buf.byteLength) break;
      }
      hash.update(buf.subarray(0, filled));
    } else {
      for await (const chunk of opened.handle.createReadStream({ autoClose: false }))
        hash.update(chunk as Buffer);
    }
    const after = await opened.handle.stat();
    if (after.size !== opened.size || Math.trunc(after.mtimeMs) !== opened.mtimeMs) return undefined;
    return { id: row.id, hash: hash.digest("hex"), size: opened.size, mtimeMs: opened.mtimeMs };
  } finally {
    await opened.handle.close();
  }
}
