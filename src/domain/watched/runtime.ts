import { dirname } from "node:path";
import type { Config } from "../../config/schema.ts";
import type { Logger } from "../../log.ts";
import type { HostPolicy } from "../../platform/host-policy.ts";
import { deviceOf, isNetworkFs, listDir, realDir } from "../../platform/hostfs.ts";
import { nowIso } from "../../platform/ids.ts";
import type { Metrics } from "../../platform/metrics.ts";
import { type DirWatch, maxUserWatches, watchDirs } from "../../platform/watcher.ts";
import { excluder } from "./exclude.ts";
import { hashPending } from "./hasher.ts";
import { MERGE_AFTER_ROWS, mergeIndex } from "./index-merge.ts";
import { newMovePool } from "./moves.ts";
import { type DirTask, newStats, type ScanStats, type ScanTarget } from "./scan-types.ts";
import { syncTree } from "./scanner.ts";
import { countFiles, dirRels } from "./slices.ts";
import type { FolderProgress, WatchedFolderRow, WatchedRepo } from "./watched.repo.ts";

/** How often an offline folder's host path is probed for its return. */
const OFFLINE_PROBE_MS = 3000;
/** A probe unanswered this long (ms) says so in the folder's status: its mount hangs. */
const PROBE_HUNG_MS = 5000;
/**
 * Probes awaiting an answer, all folders together, at most: a probe of a
 * hung mount holds one of libuv's four pool threads until the mount answers,
 * and a fifth never starts, whatever the number of hung folders.
 */
const MAX_PROBES_OUT = 2;
/** Fraction of the kernel's inotify budget one folder may take before Attic polls instead. */
const WATCH_BUDGET = 0.8;

export interface RuntimeDeps {
  repo: WatchedRepo;
  cfg: Config["watch"];
  log: Logger;
  metrics: Metrics;
  limits: ScanTarget["limits"];
  /** Which host directories may be watched: checked again at every scan, not only at creation. */
  hostPolicy: HostPolicy;
  /** True while requests are arriving (platform/activity.ts). */
  busy?: () => boolean;
}

interface FolderState {
  id: string;
  /** Scans and syncs of one folder run one after another: they write the same rows. */
  chain: Promise<void>;
  abort: AbortController;
  status: string;
  message: string | null;
  root?: string;
  /** The root is on a local file system (stats may run synchronously). */
  local: boolean;
  watch?: DirWatch;
  pollTimer?: NodeJS.Timeout;
  pollReason?: string;
  probeTimer?: NodeJS.Timeout;
  /** A probe of the host path is awaiting its answer (see probe). */
  probing?: boolean;
  hashing: boolean;
  hashAgain?: boolean;
  /** The running hash pass (awaited when the folder stops). */
  hashRun?: Promise<void>;
  /** Subfolders that could not be watched (unreadable); rescans still visit them. */
  unwatchable: Set<string>;
  /** The periodic full rescan (watch.full_rescan_interval). */
  fullTimer?: NodeJS.Timeout;
  /** A scan queued and not started yet: later asks join it (see scan). */
  queuedScan?: { full: boolean; run: Promise<void> };
  /** The changed directories of a live sync queued and not started yet: later batches join it. */
  queuedSync?: Set<string>;
}

/**
 * The background life of watched folders: scans, live sync through the
 * watcher, the polling fallback, offline detection and lazy hashing. Holds
 * no business rules about who may do what (the service checks that).
 */
export function createWatchRuntime(deps: RuntimeDeps) {
  const { repo, cfg, log, metrics } = deps;
  const excluded = excluder(cfg.exclude, cfg.include_dotfiles);
  const states = new Map<string, FolderState>();
  /** Probes awaiting an answer, all folders together (MAX_PROBES_OUT at most). */
  let probesOut = 0;
  let closed = false;
  /** Whether some folder of this process is scanning (background work waits for it). */
  const anyScanning = () => [...states.values()].some((x) => x.status === "scanning");
  /** The search index's merge after big scans (index-merge.ts): one at a time for the whole index. */
  const merge = { abort: new AbortController(), run: undefined as Promise<void> | undefined, again: false };

  const stateOf = (id: string): FolderState => {
    let st = states.get(id);
    if (!st) {
      st = {
        id,
        chain: Promise.resolve(),
        abort: new AbortController(),
        status: "idle",
        message: null,
        local: false,
        hashing: false,
        unwatchable: new Set(),
      };
      states.set(id, st);
    }
    return st;
  };

  function enqueue(st: FolderState, job: () => Promise<void>): Promise<void> {
    const run = st.chain.then(async () => {
      if (closed || st.abort.signal.aborted) return;
      try {
        await job();
      } catch (err) {
        if (closed || st.abort.signal.aborted) return;
        log.error({ err, folder: st.id }, "watched folder work failed");
        setStatus(st, "error", (err as Error).message);
      }
    });
    st.chain = run;
    return run;
  }

  function setStatus(
    st: FolderState,
    status: string,
    message: string | null,
    extra: FolderProgress = {},
  ): void {
    st.status = status;
    st.message = message;
    const counts: Record<string, number> = {};
    for (const s of states.values()) counts[s.status] = (counts[s.status] ?? 0) + 1;
    for (const name of ["idle", "scanning", "watching", "polling", "offline", "error"]) {
      metrics.watchedFolders.set({ status: name }, counts[name] ?? 0);
    }
    try {
      repo.updateFolder(st.id, { status, status_message: message, ...extra });
    } catch (err) {
      // The database refused (locked past the busy timeout, disk full): the status stays in memory
      // (/health reads it there) and is written with the next one. Thrown from a job's error handler
      // or a watcher's callback, it rejected the folder's queue for good (no sync nor scan ran any
      // more) and, unhandled, ended the process.
      log.error({ err, folder: st.id, status }, "could not record a watched folder's status");
    }
  }

  /** Checks the host root; goes offline (and answers undefined) when it is gone or looks unmounted. */
  async function presentRoot(st: FolderState, row: WatchedFolderRow): Promise<string | undefined> {
    const root = await realDir(row.path);
    const refusal = root && deps.hostPolicy.refusal(row.path, root);
    if (refusal) {
      refuse(st, `${row.path} ${refusal}: it is no longer scanned nor served`);
      return undefined;
    }
    let reason: string | undefined;
    if (!root) reason = "host folder is missing (drive unmounted or removed?)";
    else if (root !== row.path) reason = "host folder now resolves to another place";
    else if (row.root_was_mount && (await deviceOf(root))?.mountPoint === false) {
      // Whatever the bare mount point holds (an app that wrote into it while the drive was away), it
      // is not the drive: following it would drop the drive's whole index, tags and positions with it.
      reason = "the drive mounted here is unplugged (its mount point is a plain directory now)";
    } else if ((await listDir(root)).entries.length === 0 && repo.hasFiles(row.id)) {
      reason = await emptyRootReason(row, root);
    }
    if (!reason) return root;
    await goOffline(st, reason);
    return undefined;
  }

  /**
   * An empty root whose files were indexed: an unplugged drive (keep the
   * index, go offline) or a folder emptied on purpose (follow it)? Emptied:
   * the same device as at the last scan, and still a mount point if it was
   * one. Unplugged: it was a mount point and is now a plain directory of the
   * parent's file system, or anything else we cannot tell (the safe answer).
   */
  async function emptyRootReason(row: WatchedFolderRow, root: string): Promise<string | undefined> {
    const now = await deviceOf(root);
    if (now && row.root_device !== null && row.root_was_mount !== null) {
      if (row.root_was_mount && !now.mountPoint)
        return "the drive mounted here is unplugged (mount point is empty)";
      if (now.device === row.root_device && now.mountPoint === row.root_was_mount) return undefined;
    }
    return "host folder is empty while files were indexed (drive unmounted?)";
  }

  /**
   * A folder the host policy no longer allows (the data dir moved into it,
   * watch.allowed_roots narrowed since it was made): nothing more of it is
   * read. Its rows stay, and serving them is refused (watched.service.ts).
   * The policy is fixed for the life of the process: no probe.
   */
  function refuse(st: FolderState, message: string): void {
    stopLive(st);
    clearInterval(st.probeTimer);
    st.probeTimer = undefined;
    if (st.status !== "error" || st.message !== message)
      log.warn({ folder: st.id, message }, "watched folder refused");
    setStatus(st, "error", message);
  }

  async function goOffline(st: FolderState, message: string): Promise<void> {
    stopLive(st);
    repo.setOffline(st.id, true);
    setStatus(st, "offline", message);
    st.probeTimer ??= setInterval(() => void probe(st), Math.min(OFFLINE_PROBE_MS, cfg.poll_interval * 1000));
    st.probeTimer.unref();
  }

  /**
   * Checks whether an offline folder's host path is back, and scans it when
   * it is. On a network mount that hangs (an NFS share whose server is gone,
   * an automount of an unreachable host), the realpath never returns and
   * holds a thread of libuv's pool meanwhile: a new probe each tick took all
   * four within seconds and stalled every file operation of the server. So a
   * folder has one probe out at most, all folders MAX_PROBES_OUT, and a probe
   * unanswered for PROBE_HUNG_MS says so in the folder's status.
   */
  async function probe(st: FolderState): Promise<void> {
    if (st.probing || probesOut >= MAX_PROBES_OUT) return;
    const row = repo.getById(st.id);
    if (!row) return;
    st.probing = true;
    probesOut++;
    const hung = setTimeout(() => {
      if (st.status === "offline")
        setStatus(st, "offline", `${row.path} does not answer (a network mount that hangs?)`);
    }, PROBE_HUNG_MS);
    hung.unref();
    let back: boolean;
    try {
      back = (await realDir(row.path)) === row.path;
    } finally {
      clearTimeout(hung);
      st.probing = false;
      probesOut--;
    }
    if (!back || !st.probeTimer) return;
    clearInterval(st.probeTimer);
    st.probeTimer = undefined;
    void scan(st.id, false);
  }

  /**
   * A scan and going live after it run with the small page cache held
   * (repo.holdSmallCache): listing the directories to watch and the quick
   * pass after the watches start read rows all over the table, and refilled
   * the server's cache (64 MiB then) just as the watches added their own
   * memory (1M files: anonymous RSS 138 -> 185 MiB before the first watch).
   * The hasher that follows holds it in turn, so it is given back when
   * hashing ends.
   */
  async function runScan(st: FolderState, full: boolean): Promise<void> {
    const release = repo.holdSmallCache();
    try {
      await scanThenWatch(st, full);
    } finally {
      release();
    }
  }

  async function scanThenWatch(st: FolderState, full: boolean): Promise<void> {
    const row = repo.getById(st.id);
    if (!row) return;
    const root = await presentRoot(st, row);
    const mount = repo.mountRow(st.id);
    if (!root || !mount) return;
    clearInterval(st.probeTimer);
    st.probeTimer = undefined;
    if (st.status === "offline" || row.status === "offline") repo.setOffline(st.id, false);
    st.root = root;
    st.local = !(await isNetworkFs(root));
    setStatus(st, "scanning", null, { last_scan_started_at: nowIso(), files_seen: 0, scan_errors: 0 });
    const stats = newStats();
    const t0 = performance.now();
    const rate = () => stats.filesSeen / Math.max((performance.now() - t0) / 1000, 0.001);
    const progress = () => ({ files_seen: stats.filesSeen, scan_errors: stats.errors, scan_rate: rate() });
    const reporter = setInterval(() => {
      repo.reportProgress(st.id, progress());
      metrics.watchedScanRate.set({ folder: st.id }, rate());
    }, 1000);
    // The scan's checkpoint settings last until the count (its small page cache is held by runScan,
    // through going live).
    const release = repo.holdScanSettings();
    let files_indexed: number;
    try {
      const task: DirTask = { rel: "", ...mount, isNew: false };
      await syncTree(repo, target(st, row, root), [task], scanOptions(st, stats, full, "all"));
      // Counting reads every row of the folder (in slices): a scan that added, changed and removed nothing
      // keeps the count.
      const unchanged = stats.indexed + stats.removed === 0 && row.last_scan_finished_at !== null;
      files_indexed = unchanged ? row.files_indexed : await countFiles(repo, st.id);
    } finally {
      release();
      clearInterval(reporter);
    }
    metrics.watchedScanRate.set({ folder: st.id }, rate());
    record(stats);
    // Where the root lives, remembered while it has content (see emptyRootReason).
    const where = files_indexed > 0 ? await deviceOf(root) : undefined;
    repo.updateFolder(st.id, {
      ...progress(),
      files_indexed,
      last_scan_finished_at: nowIso(),
      ...(where ? { root_device: where.device, root_was_mount: where.mountPoint } : {}),
    });
    log.info(
      { folder: st.id, ...stats, seconds: (performance.now() - t0) / 1000, full },
      "watched folder scanned",
    );
    await ensureLive(st, row, root);
    kickHasher(st, root);
    if (stats.indexed >= MERGE_AFTER_ROWS) kickMerge();
  }

  /** Merges the search index's segments in the background; a kick while one runs asks for another pass. */
  function kickMerge(): void {
    if (closed) return;
    if (merge.run) {
      merge.again = true;
      return;
    }
    merge.again = false;
    // Quiet: no request for a while (platform/activity.ts) and no folder scanning.
    const idle = () => !deps.busy?.() && !anyScanning();
    merge.run = mergeIndex({ mergeSome: repo.mergeIndex }, { signal: merge.abort.signal, idle })
      .then(
        (slices) => log.debug({ slices }, "search index merged"),
        (err) => log.warn({ err }, "merging the search index failed"),
      )
      .finally(() => {
        merge.run = undefined;
        if (merge.again) kickMerge();
      });
  }

  const target = (st: FolderState, row: WatchedFolderRow, root: string) => ({
    folderId: row.id,
    organizationId: row.organization_id,
    ownerId: row.created_by,
    root,
    local: st.local,
    limits: deps.limits,
  });
  const scanOptions = (st: FolderState, stats: ScanStats, full: boolean, recurse: "all" | "new") => ({
    full,
    recurse,
    excluded,
    signal: st.abort.signal,
    stats,
    busy: deps.busy,
    onDir: (event: "add" | "remove", rel: string) => {
      if (event === "remove") st.watch?.remove(rel);
      else if (st.watch) addWatches(st, [rel]);
    },
  });
  const record = (stats: ScanStats) => {
    metrics.watchedFilesIndexed.inc(stats.indexed);
    metrics.watchedScanErrors.inc(stats.errors);
  };

  /**
   * Live watching sees names come and go, and a quick rescan skips
   * directories whose mtime is unchanged: an in-place edit that keeps a
   * file's name (a tag editor rewriting an MP3) is seen by neither. A full
   * rescan stats every file; it runs every watch.full_rescan_interval.
   */
  function scheduleFullRescan(st: FolderState): void {
    if (st.fullTimer || cfg.full_rescan_interval <= 0) return;
    st.fullTimer = setInterval(() => void scan(st.id, true), cfg.full_rescan_interval * 1000);
    st.fullTimer.unref();
  }

  /** Starts the live watch, or the polling fallback when watching is off, too costly or failing. */
  async function ensureLive(st: FolderState, row: WatchedFolderRow, root: string): Promise<void> {
    scheduleFullRescan(st);
    if (st.watch) return setStatus(st, "watching", null);
    if (st.pollTimer) return setStatus(st, "polling", st.pollReason ?? null);
    if (!cfg.live) return startPolling(st, "live watching is off (watch.live = false)");
    const dirs = await dirRels(repo, st.id);
    const max = maxUserWatches();
    if (max !== undefined && dirs.length > max * WATCH_BUDGET) {
      const why = `${dirs.length} directories exceed the inotify budget (${max}); raise fs.inotify.max_user_watches`;
      return startPolling(st, why);
    }
    st.watch = watchDirs(root, {
      debounceMs: cfg.debounce * 1000,
      onChanges: (changed) => queueSync(st, changed),
      onError: (err) => watchFailed(st, err),
      onOverflow: () => {
        // Lost events leave ghost rows and missing files nobody would report: a full rescan finds them.
        log.warn(
          { folder: st.id },
          "the kernel dropped file-system events of a burst; rescanning the folder",
        );
        void scan(st.id, true);
      },
      onSkip: (rel, err) => {
        // One unreadable subfolder is skipped (and rescanned with the others), not the whole folder polled.
        st.unwatchable.add(rel);
        log.warn({ folder: st.id, dir: rel, code: err.code }, "a subfolder cannot be watched; skipped");
      },
    });
    // In slices: 10k inotify_add_watch calls at once would hold the event loop for a noticeable while.
    for (let i = 0; i < dirs.length; i += 500) {
      if (!addWatches(st, dirs.slice(i, i + 500))) return;
      await new Promise((r) => setImmediate(r));
    }
    if (!st.watch) return;
    const skipped = st.unwatchable.size;
    setStatus(
      st,
      "watching",
      skipped > 0
        ? `${skipped} unreadable subfolder(s) not watched (picked up by rescans): ${[...st.unwatchable].slice(0, 3).join(", ")}`
        : null,
    );
    // Changes made while the first scan ran, before the watches existed: a quick pass over changed directories.
    const mount = repo.mountRow(st.id);
    if (mount)
      await syncTree(
        repo,
        target(st, row, root),
        [{ rel: "", ...mount, isNew: false }],
        scanOptions(st, newStats(), false, "all"),
      );
  }

  /** Adds watches; on a refusal (ENOSPC: the kernel's budget is spent) falls back to polling. */
  function addWatches(st: FolderState, rels: string[]): boolean {
    try {
      for (const rel of rels) st.watch?.add(rel);
      return true;
    } catch (err) {
      watchFailed(st, err as NodeJS.ErrnoException);
      return false;
    }
  }

  function watchFailed(st: FolderState, err: NodeJS.ErrnoException): void {
    log.warn({ err, folder: st.id }, "watching a folder failed; falling back to periodic rescans");
    stopLive(st);
    startPolling(st, `live watching failed (${err.code ?? err.message})`);
  }

  function startPolling(st: FolderState, message: string): void {
    clearInterval(st.pollTimer);
    st.pollTimer = setInterval(() => void scan(st.id, true), cfg.poll_interval * 1000);
    st.pollTimer.unref();
    st.pollReason = `${message}; rescanning every ${cfg.poll_interval} s`;
    setStatus(st, "polling", st.pollReason);
  }

  function stopLive(st: FolderState): void {
    clearInterval(st.pollTimer);
    st.pollTimer = undefined;
    st.watch?.close();
    st.watch = undefined;
  }

  /** Re-reads directories whose entries changed (new subdirectories in full). */
  async function runSync(st: FolderState, changed: Set<string>): Promise<void> {
    const row = repo.getById(st.id);
    if (!row || !st.root || !st.watch) return;
    const root = await presentRoot(st, row);
    if (!root) return;
    const tasks = new Map<string, DirTask>();
    for (const rel of changed) {
      // The nearest directory still indexed: a removed directory is noticed by its parent.
      for (let dir = rel; ; dir = parentRel(dir)) {
        const found = repo.byRel(st.id, dir);
        if (found?.type === "directory") {
          tasks.set(dir, {
            ...{ rel: dir, id: found.id, path: found.path },
            ...{ knownMtime: null, knownInode: found.knownInode, isNew: false, acl: found.acl },
          });
          break;
        }
        if (dir === "") break;
      }
    }
    const stats = newStats();
    const opts = { ...scanOptions(st, stats, true, "new"), moves: newMovePool() };
    await syncTree(repo, target(st, row, root), [...tasks.values()], opts);
    // A directory whose watch was dropped (moved or deleted away, see watchDirs) and that is indexed
    // again at the same name (a new directory made there) is watched again; add is a no-op for the others.
    if (st.watch)
      addWatches(
        st,
        [...changed].filter((rel) => repo.byRel(st.id, rel)?.type === "directory"),
      );
    record(stats);
    if (stats.indexed + stats.removed > 0)
      repo.updateFolder(st.id, { files_indexed: await countFiles(repo, st.id) });
    // A sync that failed before left the folder in error: this one went through, it is live again.
    if (st.status === "error" && st.watch) setStatus(st, "watching", null);
    kickHasher(st, root);
  }

  /** Hashes the folder's new files in the background; a kick while a pass runs asks for one more pass. */
  function kickHasher(st: FolderState, root: string): void {
    if (cfg.hash_concurrency === 0) return;
    if (st.hashing) {
      st.hashAgain = true;
      return;
    }
    st.hashing = true;
    st.hashAgain = false;
    // Scans (of any folder) go first: hashing waits while one runs.
    const opts = { concurrency: cfg.hash_concurrency, signal: st.abort.signal, log, paused: anyScanning };
    const release = repo.holdSmallCache();
    st.hashRun = hashPending(repo, st.id, root, opts)
      .finally(release)
      .then(
        () => undefined,
        (err) => log.warn({ err, folder: st.id }, "hashing watched files failed"),
      )
      .finally(() => {
        st.hashing = false;
        if (st.hashAgain && !st.abort.signal.aborted) kickHasher(st, root);
      });
  }

  /**
   * Queues a live sync of `changed`, or adds them to the one queued and not
   * started yet: batches keep coming while a long sync runs (a copy of
   * thousands of files), and each used to queue a sync of its own.
   */
  function queueSync(st: FolderState, changed: Set<string>): void {
    if (st.queuedSync) {
      for (const rel of changed) st.queuedSync.add(rel);
      return;
    }
    const dirs = new Set(changed);
    st.queuedSync = dirs;
    void enqueue(st, () => {
      if (st.queuedSync === dirs) st.queuedSync = undefined;
      return runSync(st, dirs);
    });
  }

  /**
   * Queues a scan of a folder (after any running one); resolves when it has
   * run. A scan queued and not started yet covers any asked for meanwhile
   * (full if one of them is): the polling timer, the full rescan timer, the
   * offline probe and repeated requests each queued one more scan, so a
   * folder whose scan outlasts the poll interval piled up scans without end
   * and was rescanned back to back for good.
   */
  function scan(id: string, full: boolean): Promise<void> {
    const st = stateOf(id);
    if (st.queuedScan) {
      st.queuedScan.full ||= full;
      return st.queuedScan.run;
    }
    const queued: { full: boolean; run: Promise<void> } = { full, run: Promise.resolve() };
    st.queuedScan = queued;
    queued.run = enqueue(st, () => {
      if (st.queuedScan === queued) st.queuedScan = undefined;
      return runScan(st, queued.full);
    });
    return queued.run;
  }

  /** Stops every background activity of a folder (before it is deleted). */
  async function stop(id: string): Promise<void> {
    const st = states.get(id);
    if (!st) return;
    st.abort.abort();
    clearInterval(st.probeTimer);
    clearInterval(st.fullTimer);
    stopLive(st);
    await st.chain;
    // The hash pass sees the abort between files: wait for the file it is reading.
    await st.hashRun;
    states.delete(id);
  }

  return {
    scan,
    stop,
    /** Scans every folder of the instance (server start); watches start after each scan. */
    startAll(): void {
      for (const row of repo.all()) void scan(row.id, false);
    },
    /** Closes every watcher and timer and waits for running work to stop (shutdown). */
    async close(): Promise<void> {
      closed = true;
      merge.abort.abort();
      await Promise.all([...states.keys()].map(stop));
      await merge.run;
    },
    /** Status and message of each folder this process runs. */
    statuses: () => [...states.values()].map((s) => ({ id: s.id, status: s.status, message: s.message })),
  };
}

const parentRel = (rel: string) => {
  const d = dirname(rel);
  return d === "." ? "" : d;
};

export type WatchRuntime = ReturnType<typeof createWatchRuntime>;
