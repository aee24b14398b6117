import type { FileFacts } from "../../platform/hostfs.ts";
import { type BatchWriter, FLUSH_EVERY } from "./batch-writer.ts";
import { fileEntry, mimeOf, relOf } from "./entries.ts";
import type { DirTask, MovePool, ScanOptions, ScanTarget } from "./scan-types.ts";
import type { IndexedChild } from "./watched.repo.ts";

export const newMovePool = (): MovePool => ({ gone: new Map(), fresh: [] });
export const signature = (size: number, mtimeMs: number | null) => `${size}:${mtimeMs}`;

/** The columns a kept row takes on when its file now goes by `name` in `task`'s directory. */
const movedTo = (id: string, task: DirTask, name: string) => ({
  id,
  parentId: task.id,
  name,
  path: `${task.path}/${name}`,
  rel: relOf(task, name),
  mime: mimeOf(name),
  acl: task.acl,
});

/** Moves keep their rows (id, tags, playback positions); unpaired files are added or removed as usual. */
export function settleMoves(writer: BatchWriter, target: ScanTarget, pool: MovePool, opts: ScanOptions) {
  for (const { task, name, facts } of pool.fresh) {
    const key = signature(facts.size, facts.mtimeMs);
    const old = pool.gone.get(key);
    if (!old) {
      fileEntry(writer, target, task, name, facts, undefined);
      continue;
    }
    pool.gone.delete(key);
    const move = movedTo(old.id, task, name);
    writer.push({ k: "move", move });
  }
  for (const { rel } of pool.gone.values()) {
    writer.push({ k: "delete", folderId: target.folderId, rel });
    opts.stats.removed++;
  }
}

/**
 * New names in a directory: a vanished file row with the same size and mtime
 * is taken to be the same file renamed (mv keeps the mtime), so it keeps its
 * id, tags and playback positions; other names become new rows.
 */
export async function renameOrAdd(
  writer: BatchWriter,
  target: ScanTarget,
  task: DirTask,
  fresh: { name: string; facts: FileFacts }[],
  gone: Map<string, IndexedChild>,
  opts: ScanOptions,
): Promise<void> {
  const bySignature = new Map<string, IndexedChild>();
  for (const row of gone.values()) {
    if (row.type === "file") bySignature.set(signature(row.size, row.host_mtime_ms), row);
  }
  for (const [i, { name, facts }] of fresh.entries()) {
    // A huge new directory's rows go to the writer as they are made (scanner.ts does the same).
    if (i % FLUSH_EVERY === FLUSH_EVERY - 1) await writer.maybeFlush();
    const key = signature(facts.size, facts.mtimeMs);
    const old = bySignature.get(key);
    if (old) {
      bySignature.delete(key);
      gone.delete(old.name);
      const rename = movedTo(old.id, task, name);
      writer.push({ k: "move", move: rename });
    } else if (opts.moves) opts.moves.fresh.push({ task, name, facts });
    else fileEntry(writer, target, task, name, facts, undefined);
    opts.stats.indexed++;
  }
}
