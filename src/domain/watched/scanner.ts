import { join } from "node:path";
import { setImmediate as yieldToLoop } from "node:timers/promises";
import type { HostEntry } from "../../platform/hostfs.ts";
import {
  confinedLinkTarget,
  dirFacts,
  dirFactsSync,
  type FileFacts,
  fileFacts,
  fileFactsSync,
  listDir,
} from "../../platform/hostfs.ts";
import { mapLimit, runWorkers } from "../../platform/pool.ts";
import { BatchWriter, FLUSH_EVERY } from "./batch-writer.ts";
import { dirGone, moveDirHere, movedHere, newDirMovePool, nextRound, settleDirMoves } from "./dir-moves.ts";
import { childTask, dirEntry, fileEntry, isDir, relOf } from "./entries.ts";
import { renameOrAdd, settleMoves, signature } from "./moves.ts";
import type { DirMovePool, DirTask, ScanOptions, ScanTarget } from "./scan-types.ts";
import type { WatchedRepo } from "./watched.repo.ts";

const DIR_CONCURRENCY = 8;
const YIELD_EVERY_MS = 10;
const STAT_CONCURRENCY = 32;

/**
 * Brings the index of the directories in `start` (and below, per
 * `opts.recurse`) in line with the host: a streaming walk, types from
 * dirents, a stat only for files, unchanged directories skipped on rescans
 * (same mtime: no entry was added, removed or renamed in them).
 */
export async function syncTree(
  repo: WatchedRepo,
  target: ScanTarget,
  start: DirTask[],
  scanOpts: ScanOptions,
): Promise<void> {
  // Directories renamed or moved within the walk keep their rows (dir-moves.ts).
  const opts = { ...scanOpts, dirMoves: scanOpts.dirMoves ?? newDirMovePool() };
  const writer = new BatchWriter(repo, opts.stats, opts.busy);
  const queue = [...start];
  let lastYield = performance.now();
  let failed = false;
  const worker = async () => {
    for (let task = queue.pop(); task && !failed; task = queue.pop()) {
      try {
        opts.signal?.throwIfAborted();
        const subdirs = await syncDir(repo, writer, target, task, opts);
        queue.push(...subdirs);
        await writer.maybeFlush();
      } catch (err) {
        // The other workers stop at their next directory (runWorkers waits for them).
        failed = true;
        throw err;
      }
      // Unchanged directories resolve without I/O waits: give the event loop its turn every few ms.
      if (performance.now() - lastYield > YIELD_EVERY_MS) {
        await yieldToLoop();
        lastYield = performance.now();
      }
    }
  };
  try {
    // Workers end when the queue is momentarily empty; loop until no worker found more work, and
    // again for what waited for the moves of the walk (dir-moves.ts nextRound).
    for (;;) {
      while (queue.length > 0) await runWorkers(DIR_CONCURRENCY, worker);
      const next = await nextRound(repo, writer, target, opts);
      if (next.length === 0) break;
      queue.push(...next);
    }
    if (opts.moves) settleMoves(writer, target, opts.moves, opts);
    settleDirMoves(writer, target, opts.dirMoves, opts);
    await writer.flush();
  } finally {
    // A walk that ended early (stopped, failed) still has batches on the writer thread: once they
    // are committed or rolled back, nothing of this walk writes any more (a scan started next reads
    // what it wrote, and would otherwise insert the same rows beside its late commits).
    await writer.settled();
    writer.close();
  }
}

async function syncDir(
  repo: WatchedRepo,
  writer: BatchWriter,
  target: ScanTarget,
  visited: DirTask,
  opts: ScanOptions & { dirMoves: DirMovePool },
): Promise<DirTask[]> {
  let task = visited;
  const pool = opts.dirMoves;
  // Its row moved elsewhere in this walk: what its old place holds now is indexed afresh (nextRound).
  if (!task.isNew && pool.taken.has(task.id) && pool.taken.get(task.id) !== task.rel) return [];
  const abs = join(target.root, task.rel);
  const facts = target.local ? safe(() => dirFactsSync(abs)) : await dirFacts(abs).catch(() => undefined);
  if (facts === undefined) {
    // Gone (or replaced by a link or a file) since its parent was read: dropped, unless it went
    // elsewhere in the folder (a move found by this walk takes it first).
    if (task.rel !== "" && !task.isNew) dirGone(pool, task.id, task.rel);
    else {
      if (task.rel !== "") {
        writer.push({ k: "delete", folderId: target.folderId, rel: task.rel });
        opts.stats.removed++;
      }
      opts.onDir?.("remove", task.rel);
    }
    return [];
  }
  if (
    pool.round === 0 &&
    !task.isNew &&
    task.rel !== "" &&
    task.knownInode &&
    task.knownInode !== facts.inode
  ) {
    // Another directory holds its name: its row may have moved (found later in this round); walked after.
    pool.mismatched.push(task);
    return [];
  }
  const mtime = facts.mtimeMs;
  if (!opts.full && !task.isNew && task.knownMtime === mtime) {
    // Unchanged: no entry was added, removed or renamed here; only its subdirectories need a look.
    opts.stats.dirsSkipped++;
    // Its identity, first read or changed (a rescan after migration 0025 fills them in).
    if (task.knownInode !== undefined && task.knownInode !== facts.inode)
      writer.push({ k: "mtime", id: task.id, mtimeMs: mtime, inode: facts.inode });
    if (opts.recurse !== "all") return [];
    return repo.childDirs(target.organizationId, task.id).map((row) => childTask(task, row));
  }
  const entries = await readEntries(abs, target, opts);
  if (!entries) return [];
  if (task.isNew) {
    // A folder renamed or moved here on the host keeps its row (dir-moves.ts).
    const was = await movedHere(
      repo,
      target,
      task,
      facts,
      entries.map((e) => e.name),
      pool,
    );
    if (was) task = await moveDirHere(repo, writer, target, task, was, facts, opts);
  }
  const existing = task.isNew ? [] : repo.children(target.organizationId, task.id);
  const byName = new Map(existing.map((row) => [row.name, row]));
  const subdirs: DirTask[] = [];
  const fresh: { name: string; facts: FileFacts }[] = [];
  // Entries here sit one level below this directory: past the tree's bounds, they are not indexed (and counted as errors).
  let depth = 1;
  for (let i = 0; i < task.path.length; i++) if (task.path.charCodeAt(i) === 47) depth++;
  const tooDeep = depth > target.limits.maxDepth;
  let seen = 0;
  for (const entry of entries) {
    // A huge directory's rows go to the writer as they are made: the loop never holds the event loop for
    // long, and 100k queued writes never pile up in the heap.
    if (++seen % FLUSH_EVERY === 0) await writer.maybeFlush();
    const found = byName.get(entry.name);
    // A row a move of this walk took is elsewhere now: what holds its old name here is new.
    const row = found && pool.taken.has(found.id) ? undefined : found;
    if (entry.kind === "skip") continue;
    if (tooDeep || task.path.length + 1 + entry.name.length > target.limits.maxPathLength) {
      opts.stats.errors++;
      continue;
    }
    byName.delete(entry.name);
    if (entry.kind !== "file") {
      const sub = dirEntry(writer, target, task, entry.name, row);
      if (sub.isNew) opts.onDir?.("add", sub.rel);
      subdirs.push(sub);
    } else if (!row) fresh.push(entry);
    else if (fileEntry(writer, target, task, entry.name, entry.facts, row)) opts.stats.indexed++;
  }
  await renameOrAdd(writer, target, task, fresh, byName, opts);
  // Rows whose entry vanished, or became something never indexed (a FIFO, an escaping link).
  let deferred = false;
  for (const gone of byName.values()) {
    const rel = relOf(task, gone.name);
    if (isDir(gone)) {
      // Deleted when the walk ends, unless it was renamed or moved within the folder (dir-moves.ts).
      dirGone(pool, gone.id, rel);
      deferred = true;
      continue;
    }
    const sig = signature(gone.size, gone.host_mtime_ms);
    if (opts.moves && gone.type === "file" && !opts.moves.gone.has(sig)) {
      opts.moves.gone.set(sig, { id: gone.id, rel });
      continue;
    }
    writer.push({ k: "delete", folderId: target.folderId, rel });
    opts.stats.removed++;
  }
  // Stored after the children (after the gone directories are settled, for those): an interrupted scan
  // leaves the old mtime, so the next one redoes this directory.
  const stored = { k: "mtime", id: task.id, mtimeMs: mtime, inode: facts.inode } as const;
  if (deferred) pool.later.push(stored);
  else writer.push(stored);
  return subdirs.filter((d) => opts.recurse === "all" || d.isNew);
}

type Resolved = { name: string; kind: "dir" | "skip" } | { name: string; kind: "file"; facts: FileFacts };

/**
 * Lists a directory and says what to index of each entry: directories (never
 * through a link: that could loop or index a subtree twice), regular files
 * and links to regular files inside the root (with size and mtime), nothing
 * else. Undefined when the directory cannot be read (counted as an error).
 */
async function readEntries(
  abs: string,
  target: ScanTarget,
  opts: ScanOptions,
): Promise<Resolved[] | undefined> {
  let listing: Awaited<ReturnType<typeof listDir>>;
  try {
    listing = await listDir(abs);
  } catch {
    opts.stats.errors++;
    return undefined;
  }
  opts.stats.dirsRead++;
  opts.stats.errors += listing.badNames;
  const wanted = listing.entries.filter((e) => !opts.excluded(e.name));
  const out: Resolved[] = [];
  const links: HostEntry[] = [];
  for (const [i, e] of wanted.entries()) {
    if (e.kind === "dir") out.push({ name: e.name, kind: "dir" });
    else if (e.kind === "symlink") links.push(e);
    else if (e.kind === "file" && target.local)
      out.push(statEntry(e.name, () => fileFactsSync(join(abs, e.name)), opts));
    else if (e.kind === "file") links.push(e);
    // Sync stats on a local disk cost ~3 µs each; yield now and then so a huge directory never holds the loop.
    if (i % 512 === 511) await yieldToLoop();
  }
  const slow = await mapLimit(links, STAT_CONCURRENCY, async (e): Promise<Resolved> => {
    const full = join(abs, e.name);
    const kind = e.kind === "symlink" ? await confinedLinkTarget(full, target.root) : e.kind;
    if (kind !== "file") return { name: e.name, kind: "skip" };
    const facts = await fileFacts(full).catch(() => null);
    return statEntry(
      e.name,
      () => {
        if (facts === null) throw new Error("stat failed");
        return facts;
      },
      opts,
    );
  });
  return out.concat(slow);
}

/** Resolves one file entry with `facts` (throws on a failed stat); errors are counted, not thrown. */
function statEntry(name: string, facts: () => FileFacts | undefined, opts: ScanOptions): Resolved {
  try {
    const f = facts();
    if (!f) return { name, kind: "skip" };
    opts.stats.filesSeen++;
    return { name, kind: "file", facts: f };
  } catch {
    opts.stats.errors++;
    return { name, kind: "skip" };
  }
}

const safe = <T>(fn: () => T): T | undefined => {
  try {
    return fn();
  } catch {
    return undefined;
  }
};
