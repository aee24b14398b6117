import { join } from "node:path";
import { type DirFacts, dirFacts, dirFactsSync } from "../../platform/hostfs.ts";
import { type BatchWriter, FLUSH_EVERY } from "./batch-writer.ts";
import { dirEntry, mimeOf } from "./entries.ts";
import type { DirMovePool, DirTask, ScanOptions, ScanTarget } from "./scan-types.ts";
import type { MoveCandidate, WatchedRepo } from "./watched.repo.ts";

/*
 * Folders renamed or moved on the host, inside their watched folder. The
 * walk sees the old directory vanish and a new one appear; indexed as new,
 * the folder lost its id and with it its own grants (a private folder then
 * took its parent's and became readable by whoever read the parent), its
 * files' tags, playback positions and share links. rename(2) keeps a
 * directory's device, inode and mtime: a new directory whose identity
 * ("device:inode") is that of a directory row gone from its place is that
 * folder, and its row moves (id, grants and everything keyed on the ids of
 * it and its subtree stay); the rows below take their new paths and host
 * paths through the walk's writer, in order with the walk's other writes.
 *
 * Conservative: a move is taken only when exactly one row has that
 * identity, its old place holds no directory of that identity now (nor one
 * that cannot be read), and either its mtime is the one the index recorded
 * or, its old place being empty, one of its entries is still there (an
 * inode number reused by a directory made after another was deleted has
 * neither). Anything else is indexed as before: a new folder. When another directory took the old
 * place at once (`mv d d.old && mkdir d`), the row moves with its folder
 * and the new directory is indexed afresh once the walk's round is over
 * (nextRound): the directory that holds the old name waits for that round
 * to end, since a move found later in it may take its row.
 */

export const newDirMovePool = (): DirMovePool => ({
  ...{ gone: new Map(), taken: new Map(), movedFrom: [], later: [] },
  ...{ mismatched: [], redo: [], round: 0 },
});

const within = (pool: DirMovePool, rel: string) =>
  pool.movedFrom.some((m) => rel === m || rel.startsWith(`${m}/`));

/**
 * A directory row whose host entry vanished: deleted when the walk ends,
 * unless a move took it. A host path below a folder moved away in this walk
 * is stale (the row, if gone, is found gone again at its new path).
 */
export function dirGone(pool: DirMovePool, id: string, rel: string): void {
  if (!pool.taken.has(id) && !within(pool, rel)) pool.gone.set(id, rel);
}

/** Deletes the gone directories no move took, then writes what waited for them. */
export function settleDirMoves(
  writer: BatchWriter,
  target: ScanTarget,
  pool: DirMovePool,
  opts: ScanOptions,
) {
  for (const [id, rel] of pool.gone) {
    // Found gone at its old path before its folder's move: it went with it (or is found gone anew there).
    if (pool.taken.has(id) || within(pool, rel)) continue;
    writer.push({ k: "delete", folderId: target.folderId, rel });
    opts.stats.removed++;
    opts.onDir?.("remove", rel);
  }
  pool.gone.clear();
  for (const op of pool.later) writer.push(op);
  pool.later = [];
}

/** The identity of the directory at `abs`: null when there is none, undefined when it cannot be told. */
async function identityAt(abs: string, local: boolean): Promise<string | null | undefined> {
  try {
    return (local ? dirFactsSync(abs) : await dirFacts(abs))?.inode ?? null;
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    return code === "ENOENT" || code === "ENOTDIR" ? null : undefined;
  }
}

/**
 * The directory row that new directory `task` (read as `facts`, holding
 * `names`) was before the host renamed or moved it, if it is sure to be one.
 */
export async function movedHere(
  repo: WatchedRepo,
  target: ScanTarget,
  task: DirTask,
  facts: DirFacts,
  names: readonly string[],
  pool: DirMovePool,
): Promise<(MoveCandidate & { replaced: boolean }) | undefined> {
  const found = repo.dirsByInode(target.folderId, facts.inode).filter((r) => r.id !== task.id);
  if (found.length !== 1) return undefined;
  const row = found[0]!;
  if (pool.taken.has(row.id) || task.rel === row.rel || task.rel.startsWith(`${row.rel}/`)) return undefined;
  // Its old place may hold another directory (made there at once: `mv d d.old && mkdir d`), which is
  // then indexed afresh (redo); the same one (a bind mount showing it twice), or one we cannot tell, is no move.
  const there = await identityAt(join(target.root, row.rel), target.local);
  if (there === undefined || there === facts.inode) return undefined;
  if (row.mtimeMs !== facts.mtimeMs) {
    // Changed since it was indexed (an entry added or removed before the rename): the same folder
    // only if it still holds one of the entries it had, and its old place is empty (with another
    // directory there, only the recorded mtime tells: inode numbers a network share makes up anew
    // at each mount may match another folder's, and common names such as "cover.jpg" too).
    if (there !== null) return undefined;
    const here = new Set(names);
    if (!repo.children(target.organizationId, row.id).some((c) => here.has(c.name))) return undefined;
  }
  return { ...row, replaced: there !== null };
}

/**
 * Moves directory row `row` to new directory `task`'s place (dropping the
 * row the walk made for it) and its subtree's rows to their new paths and
 * host paths; answers the task that walks it from there as the folder it
 * was. Watches follow: the new places are watched, the old ones dropped.
 */
export async function moveDirHere(
  repo: WatchedRepo,
  writer: BatchWriter,
  target: ScanTarget,
  task: DirTask,
  row: MoveCandidate & { replaced: boolean },
  facts: DirFacts,
  opts: ScanOptions & { dirMoves: DirMovePool },
): Promise<DirTask> {
  const pool = opts.dirMoves;
  pool.taken.set(row.id, task.rel);
  pool.movedFrom.push(row.rel);
  if (row.replaced) pool.redo.push(row.rel);
  const name = task.rel.slice(task.rel.lastIndexOf("/") + 1);
  writer.push({ k: "delete", folderId: target.folderId, rel: task.rel });
  writer.push({
    k: "move",
    move: {
      ...{ id: row.id, parentId: task.parentId!, name, path: task.path, rel: task.rel },
      ...{ mime: "inode/directory", acl: task.acl },
    },
  });
  // The subtree, a directory at a time from the index (its rows keep their parents; only paths change).
  const dirs = [{ id: row.id, rel: task.rel, path: task.path }];
  const watched: string[] = [];
  let queued = 0;
  for (let d = dirs.pop(); d; d = dirs.pop()) {
    for (const child of repo.children(target.organizationId, d.id)) {
      const isDir = child.type === "directory";
      const at = { rel: `${d.rel}/${child.name}`, path: `${d.path}/${child.name}` };
      writer.push({
        k: "move",
        move: {
          ...{ id: child.id, parentId: d.id, name: child.name, ...at },
          ...{ mime: isDir ? "inode/directory" : mimeOf(child.name), acl: child.acl_id },
        },
      });
      if (isDir) {
        dirs.push({ id: child.id, ...at });
        watched.push(at.rel);
      }
      if (++queued % FLUSH_EVERY === 0) await writer.maybeFlush();
    }
  }
  // New watches before the old ones close: on the same inodes the kernel's watch is shared.
  for (const rel of watched) opts.onDir?.("add", rel);
  opts.onDir?.("remove", row.rel);
  opts.stats.indexed++;
  return {
    ...{ rel: task.rel, id: row.id, path: task.path, knownMtime: row.mtimeMs, knownInode: facts.inode },
    ...{ isNew: false, acl: row.acl === row.id ? row.id : task.acl },
  };
}

/**
 * The tasks of the walk's next round, once a round is over: directories
 * whose identity changed and whose row no move took (walked as before), and
 * new rows for directories that took the place of a folder moved away
 * (after the writes so far, which free their names). Empty when done.
 */
export async function nextRound(
  repo: WatchedRepo,
  writer: BatchWriter,
  target: ScanTarget,
  opts: ScanOptions & { dirMoves: DirMovePool },
): Promise<DirTask[]> {
  const pool = opts.dirMoves;
  if (pool.mismatched.length === 0 && pool.redo.length === 0) return [];
  pool.round++;
  // A row a move took: what holds its old place now is in `redo`.
  const tasks = pool.mismatched.filter((t) => !pool.taken.has(t.id));
  pool.mismatched = [];
  if (pool.redo.length === 0) return tasks;
  await writer.flush();
  for (const rel of pool.redo) {
    const here = repo.byRel(target.folderId, rel);
    // Indexed already (its parent was read after the move): watched again, since the move dropped the
    // watches at its old place, maybe after the walk made them for the new directory.
    if (here?.type === "directory") watchSubtree(repo, target, here.id, rel, opts);
    if (here) continue;
    const cut = rel.lastIndexOf("/");
    const parentRel = cut < 0 ? "" : rel.slice(0, cut);
    const parent = repo.byRel(target.folderId, parentRel);
    if (parent?.type !== "directory") continue;
    const at = { rel: parentRel, id: parent.id, path: parent.path, knownMtime: null, acl: parent.acl };
    const sub = dirEntry(writer, target, { ...at, isNew: false }, rel.slice(cut + 1), undefined);
    opts.onDir?.("add", sub.rel);
    tasks.push(sub);
  }
  pool.redo = [];
  return tasks;
}

/** Watches directory `rel` (row `id`) and every directory row below it. */
function watchSubtree(repo: WatchedRepo, target: ScanTarget, id: string, rel: string, opts: ScanOptions) {
  const dirs = [{ id, rel }];
  for (let d = dirs.pop(); d; d = dirs.pop()) {
    opts.onDir?.("add", d.rel);
    for (const c of repo.childDirs(target.organizationId, d.id))
      dirs.push({ id: c.id, rel: `${d.rel}/${c.name}` });
  }
}
