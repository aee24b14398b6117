import { join } from "node:path";
import { setImmediate as yieldToLoop } from "node:timers/promises";
import type { HostEntry } from "../../platform/hostfs.ts";
import {
  confinedLinkTarget,
  dirMtime,
  dirMtimeSync,
  type FileFacts,
  fileFacts,
  fileFactsSync,
  listDir,
} from "../../platform/hostfs.ts";
import { mapLimit, runWorkers } from "../../platform/pool.ts";
import { BatchWriter, FLUSH_EVERY } from "./batch-writer.ts";
import { childTask, dirEntry, fileEntry, isDir, relOf } from "./entries.ts";
import { renameOrAdd, settleMoves, signature } from "./moves.ts";
import type { DirTask, ScanOptions, ScanTarget } from "./scan-types.ts";
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
  opts: ScanOptions,
): Promise<void> {
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
    // Workers end when the queue is momentarily empty; loop until no worker found more work.
    while (queue.length > 0) await runWorkers(DIR_CONCURRENCY, worker);
    if (opts.moves) settleMoves(writer, target, opts.moves, opts);
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
  task: DirTask,
  opts: ScanOptions,
): Promise<DirTask[]> {
  const abs = join(target.root, task.rel);
  const mtime = target.local ? safe(() => dirMtimeSync(abs)) : await dirMtime(abs).catch(() => undefined);
  if (mtime === undefined) {
    // Gone (or replaced by a link or a file) since its parent was read: drop it.
    if (task.rel !== "") {
      writer.push({ k: "delete", folderId: target.folderId, rel: task.rel });
      opts.stats.removed++;
    }
    opts.onDir?.("remove", task.rel);
    return [];
  }
  if (!opts.full && !task.isNew && task.knownMtime === mtime) {
    // Unchanged: no entry was added, removed or renamed here; only its subdirectories need a look.
    opts.stats.dirsSkipped++;
    if (opts.recurse !== "all") return [];
    return repo.childDirs(target.organizationId, task.id).map((row) => childTask(task, row));
  }
  const entries = await readEntries(abs, target, opts);
  if (!entries) return [];
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
    const row = byName.get(entry.name);
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
  for (const gone of byName.values()) {
    const rel = relOf(task, gone.name);
    const sig = signature(gone.size, gone.host_mtime_ms);
    if (opts.moves && gone.type === "file" && !opts.moves.gone.has(sig)) {
      opts.moves.gone.set(sig, { id: gone.id, rel });
      continue;
    }
    writer.push({ k: "delete", folderId: target.folderId, rel });
    opts.stats.removed++;
    if (isDir(gone)) opts.onDir?.("remove", rel);
  }
  // Stored after the children: an interrupted scan leaves the old mtime, so the next one redoes this directory.
  writer.push({ k: "mtime", id: task.id, mtimeMs: mtime });
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
