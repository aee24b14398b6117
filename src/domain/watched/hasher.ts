import { createHash } from "node:crypto";
import { join } from "node:path";
import type { Logger } from "../../log.ts";
import { openConfined } from "../../platform/hostfs.ts";
import { runWorkers } from "../../platform/pool.ts";
import type { WatchedRepo } from "./watched.repo.ts";

const PAGE = 64;

/**
 * Fills `hash` of a folder's files in the background, `concurrency` files
 * at a time, never on a request path. A hash is stored only if the row still
 * has the size and mtime of the bytes read (the file may change meanwhile).
 * One pass in host path order (files that fail are left for the next pass);
 * resolves at the end of it or when `signal` aborts.
 */
export async function hashPending(
  repo: WatchedRepo,
  folderId: string,
  root: string,
  opts: { concurrency: number; signal: AbortSignal; log: Logger },
): Promise<number> {
  let hashed = 0;
  let after = "";
  while (!opts.signal.aborted) {
    const rows = repo.unhashed(folderId, after, PAGE);
    if (rows.length === 0) break;
    after = rows[rows.length - 1]!.host_rel_path;
    let next = 0;
    const worker = async () => {
      while (next < rows.length && !opts.signal.aborted) {
        const row = rows[next++]!;
        const ok = await hashOne(repo, row, root).catch((err) => {
          opts.log.debug({ err, file: row.id }, "hashing a watched file failed");
          return false;
        });
        if (ok) hashed++;
      }
    };
    await runWorkers(opts.concurrency, worker);
  }
  return hashed;
}

async function hashOne(repo: WatchedRepo, row: { id: string; host_rel_path: string }, root: string) {
  const opened = await openConfined(join(root, row.host_rel_path), root);
  if (!opened) return false;
  try {
    const hash = createHash("sha256");
    for await (const chunk of opened.handle.createReadStream({ autoClose: false }))
      hash.update(chunk as Buffer);
    const after = await opened.handle.stat();
    if (after.size !== opened.size || Math.trunc(after.mtimeMs) !== opened.mtimeMs) return false;
    repo.setHash(row.id, hash.digest("hex"), opened.size, opened.mtimeMs);
    return true;
  } finally {
    await opened.handle.close();
  }
}
