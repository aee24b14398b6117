/**
 * Indexing benchmark: `node scripts/bench/index.ts [--tree DIR] [--runs 3] [--cpus both|one] [--writes MS]`
 * (or `npm run bench -- index`).
 *
 * Builds (once, under BENCH_WORK) the shared 200k-file / 10k-directory
 * synthetic tree with ../shared/bench/mktree.py, then in the same run:
 * `find` over the tree (warm, pinned to the server CPU) as the reference;
 * copyparty, the peer (`-e2dsa --exit=idx`: its indexer over the same tree,
 * from a fresh database, pinned, timed from process start to its exit at
 * the end of indexing), when it can be found (COPYPARTY: a checkout's
 * directory or copyparty-sfx.py; else `copyparty` on PATH or importable by
 * python3), else skipped with the reason printed;
 * Attic (`node src/main.ts serve`, pinned; then once more unpinned, on both
 * CPUs, unless `--cpus one`) mounting the tree as a watched
 * folder: first scan, then an unchanged rescan, each timed by the scan's own
 * start/finish stamps; API latency (GET /health) while the first scan runs
 * next to the same when idle; peak RSS. Hashing is left on (as shipped).
 * After the rescan: the folder's state and what /health says of it (live
 * watching or the polling fallback at this size), and how long a file
 * created on the host takes to appear in its directory's listing. Then a
 * 100k-entry directory (BENCH_WORK/flat100k, built once) mounted on its own
 * and listed through the REST API: the first page and a deep page, p50/p99.
 * With `--writes MS`, the run on both CPUs also creates a directory through
 * the API every MS milliseconds while its first scan runs (a household
 * using the server meanwhile: the scan writes on its thread, these on the
 * server's connection), and reports their latency; its /health figure then
 * includes their effect.
 */
import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { type AtticProcess, startAttic, WORK } from "./lib/attic.ts";
import { freePort, pinned, run, SRV_CPU, statusMiB } from "./lib/proc.ts";
import { type Figure, figure, printFigure, say } from "./lib/report.ts";
import { median, percentile } from "./lib/stats.ts";

const MKTREE = resolve(import.meta.dirname, "../../../shared/bench/mktree.py");
const { values: args } = parseArgs({
  options: {
    tree: { type: "string", default: join(WORK, "tree") },
    runs: { type: "string", default: "3" },
    cpus: { type: "string", default: "both" },
    writes: { type: "string" },
  },
});
const WRITE_EVERY_MS = args.writes === undefined ? undefined : Number(args.writes);
const TREE = resolve(args.tree);
const FLAT = join(WORK, "flat100k");
const FLAT_ENTRIES = 100_000;
const PAGE = 50;
const RUNS = Number(args.runs);

interface Folder {
  id: string;
  directory_id: string;
  status_message?: string | null;
  status: string;
  files_indexed: number;
  last_scan_started_at?: string;
  last_scan_finished_at?: string;
}

async function ensureTree(): Promise<void> {
  if (existsSync(TREE)) return;
  say(`index: building ${TREE} with mktree.py (once)`);
  const r = await run("python3", [MKTREE, TREE], { timeoutMs: 600_000 });
  if (r.code !== 0) throw new Error(`mktree.py failed: ${r.stderr}`);
}

async function findSeconds(): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < RUNS + 1; i++) {
    const r = await run("find", [TREE, "-fprint", "/dev/null"], { cpu: SRV_CPU, timeoutMs: 300_000 });
    if (i > 0) out.push(r.seconds); // the first run warms the caches
  }
  return out;
}

/** How to start copyparty: its command, arguments before ours and environment; or why it cannot be. */
function copypartyCommand(): { cmd: string; pre: string[]; env: NodeJS.ProcessEnv } | { missing: string } {
  const given = process.env.COPYPARTY;
  if (given) {
    const path = resolve(given);
    if (!existsSync(path)) return { missing: `COPYPARTY=${given} does not exist` };
    if (statSync(path).isDirectory())
      return { cmd: "python3", pre: ["-m", "copyparty"], env: { ...process.env, PYTHONPATH: path } };
    return { cmd: "python3", pre: [path], env: process.env };
  }
  if (spawnSync("sh", ["-c", "command -v copyparty"]).status === 0)
    return { cmd: "copyparty", pre: [], env: process.env };
  if (spawnSync("python3", ["-c", "import copyparty"]).status === 0)
    return { cmd: "python3", pre: ["-m", "copyparty"], env: process.env };
  return {
    missing:
      "copyparty not found (pip install copyparty, or COPYPARTY=<a checkout's directory or copyparty-sfx.py>)",
  };
}

/**
 * copyparty's first indexing of the tree, RUNS times: `-e2dsa` (its file
 * database, every volume scanned at start, files hashed as it does by
 * default) with `--exit=idx` (it exits once the scan and indexing are done),
 * a fresh database each time, pinned to the server CPU. Wall time from
 * process start to exit (its start-up, ~0.3 s, included) and peak RSS.
 */
async function copypartyRuns(): Promise<{ seconds: number[]; rssMiB: number } | { missing: string }> {
  const how = copypartyCommand();
  if ("missing" in how) return how;
  const seconds: number[] = [];
  let rssMiB = 0;
  for (let i = 0; i < RUNS; i++) {
    const hist = mkdtempSync(join(WORK, "copyparty-hist-"));
    try {
      const port = await freePort();
      const args = [...how.pre, "-q", "-e2dsa", "--exit=idx", "-i", "127.0.0.1", "-p", String(port)];
      args.push("--hist", hist, "-v", `${TREE}::r`);
      const [cmd, a] = pinned(SRV_CPU, how.cmd, args);
      const start = performance.now();
      const child = spawn(cmd, a, { env: how.env, stdio: ["ignore", "ignore", "pipe"] });
      let err = "";
      child.stderr.on("data", (d: Buffer) => (err = (err + d.toString()).slice(-2000)));
      let peak = 0;
      const sampler = setInterval(() => {
        peak = Math.max(peak, statusMiB(child.pid, "VmHWM") || 0);
      }, 100);
      const killer = setTimeout(() => child.kill("SIGKILL"), 900_000);
      const code = await new Promise<number | null>((done) => child.once("close", done));
      clearInterval(sampler);
      clearTimeout(killer);
      if (code !== 0) return { missing: `copyparty exited with ${code}: ${err.trim()}` };
      seconds.push((performance.now() - start) / 1000);
      rssMiB = Math.max(rssMiB, peak);
    } finally {
      rmSync(hist, { recursive: true, force: true });
    }
  }
  return { seconds, rssMiB };
}

const folderOf = async (a: AtticProcess, id: string) =>
  (await a.api("GET", `/api/v1/watched-folders/${id}`)).body as Folder;
const scanSeconds = (f: Folder) =>
  (Date.parse(f.last_scan_finished_at!) - Date.parse(f.last_scan_started_at!)) / 1000;

/** Waits for a scan finishing after `since`, sampling GET /health latency meanwhile. */
async function awaitScan(a: AtticProcess, id: string, since: string, latencies?: number[]): Promise<Folder> {
  const deadline = Date.now() + 600_000;
  while (Date.now() < deadline) {
    const t0 = performance.now();
    await fetch(`${a.url}/health`).then((r) => r.arrayBuffer());
    latencies?.push(performance.now() - t0);
    const f = await folderOf(a, id);
    if ((f.last_scan_finished_at ?? "") > since && f.status !== "scanning") return f;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error("scan did not finish within 10 minutes");
}

async function idleLatencies(a: AtticProcess): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < 100; i++) {
    const t0 = performance.now();
    await fetch(`${a.url}/health`).then((r) => r.arrayBuffer());
    out.push(performance.now() - t0);
  }
  return out;
}

const rssMiB = (pid: number) => statusMiB(pid, "VmRSS");

/** Samples the resident set every 250 ms; `peak()` is the largest sample split into anonymous and file pages. */
function rssSampler(pid: number): { stop(): void; peak(): string } {
  let best = { rss: 0, anon: 0, file: 0 };
  const timer = setInterval(() => {
    const rss = statusMiB(pid, "VmRSS");
    if (rss > best.rss) best = { rss, anon: statusMiB(pid, "RssAnon"), file: statusMiB(pid, "RssFile") };
  }, 250);
  return {
    stop: () => clearInterval(timer),
    peak: () =>
      `largest sample ${best.rss.toFixed(0)} MiB = anon ${best.anon.toFixed(0)} + file ${best.file.toFixed(0)}`,
  };
}

/** Waits for the folder to leave scanning for watching (or polling), then times a new host file's arrival in the listing. */
async function liveCheck(a: AtticProcess, f: Folder): Promise<string> {
  let folder = f;
  for (let i = 0; i < 600 && !["watching", "polling", "error", "offline"].includes(folder.status); i++) {
    await new Promise((r) => setTimeout(r, 100));
    folder = await folderOf(a, f.id);
  }
  const health = (await fetch(`${a.url}/health`).then((r) => r.json())) as { status: string };
  const name = `attic-live-probe-${process.pid}.txt`;
  const file = join(TREE, name);
  writeFileSync(file, "probe");
  try {
    const t0 = performance.now();
    while (performance.now() - t0 < 120_000) {
      const page = await a.api("GET", `/api/v1/directories/${f.directory_id}/children?limit=1000`);
      const names = ((page.body as { files?: { name: string }[] }).files ?? []).map((x) => x.name);
      if (names.includes(name)) {
        const s = ((performance.now() - t0) / 1000).toFixed(1);
        return `folder ${folder.status}${folder.status_message ? ` (${folder.status_message})` : ""}; /health ${health.status}; a new host file listed after ${s} s`;
      }
      await new Promise((r) => setTimeout(r, 100));
    }
    return `folder ${folder.status} (${folder.status_message ?? ""}); /health ${health.status}; a new host file NOT listed within 120 s`;
  } finally {
    rmSync(file, { force: true });
  }
}

/** A directory of FLAT_ENTRIES empty files (mixed names), under FLAT/big; built once. */
function ensureFlat(): void {
  if (existsSync(join(FLAT, "big"))) return;
  const tmp = `${FLAT}.tmp`;
  rmSync(tmp, { recursive: true, force: true });
  mkdirSync(join(tmp, "big"), { recursive: true });
  const exts = ["jpg", "mp3", "txt", "pdf", "mkv"];
  for (let i = 0; i < FLAT_ENTRIES; i++)
    writeFileSync(
      join(tmp, "big", `${i % 7 === 0 ? "IMG" : "file"}_${(i * 7919) % 1000003} v${i}.${exts[i % 5]}`),
      "",
    );
  rmSync(FLAT, { recursive: true, force: true });
  renameSync(tmp, FLAT);
}

/** GET latencies (ms) of `path`, `n` times after 5 warm-up requests. */
async function timeGets(a: AtticProcess, path: string, n: number): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < n + 5; i++) {
    const t0 = performance.now();
    const r = await fetch(a.url + path, { headers: { authorization: `Bearer ${a.token}` } });
    await r.arrayBuffer();
    if (r.status !== 200) throw new Error(`${path}: ${r.status}`);
    if (i >= 5) out.push(performance.now() - t0);
  }
  return out;
}

/** The 100k-entry directory mounted and listed through GET /directories/{id}/children: first and a deep page. */
async function listingRun(): Promise<{ first: number[]; deep: number[]; total: number }> {
  ensureFlat();
  const a = await startAttic();
  try {
    const created = await a.api("POST", "/api/v1/watched-folders", { name: "Flat", path: FLAT });
    if (created.status !== 201) throw new Error(`create: ${created.status} ${JSON.stringify(created.body)}`);
    const folder = await awaitScan(a, (created.body as Folder).id, "");
    const top = await a.api("GET", `/api/v1/directories/${folder.directory_id}/children`);
    const big = (top.body as { files: { id: string; name: string }[] }).files.find((x) => x.name === "big");
    if (!big) throw new Error("flat100k/big is not listed");
    const path = `/api/v1/directories/${big.id}/children`;
    const count = await a.api("GET", `${path}?limit=1`);
    const total = (count.body as { total: number }).total;
    const first = await timeGets(a, `${path}?limit=${PAGE}`, 200);
    const deep = await timeGets(a, `${path}?limit=${PAGE}&offset=${total - PAGE}`, 200);
    return { first, deep, total };
  } finally {
    await a.stop();
  }
}

/**
 * Creates a directory through the API every `everyMs` until stopped; the
 * latencies of those writes, and any status other than 201.
 */
function writer(a: AtticProcess, everyMs: number) {
  const latencies: number[] = [];
  const failures: number[] = [];
  let stopped = false;
  const done = (async () => {
    for (let i = 0; !stopped; i++) {
      const t0 = performance.now();
      const r = await a.api("POST", "/api/v1/directories", { name: `written-during-scan-${i}` });
      latencies.push(performance.now() - t0);
      if (r.status !== 201) failures.push(r.status);
      await new Promise((r) => setTimeout(r, everyMs));
    }
  })();
  return {
    async stop() {
      stopped = true;
      await done;
      return { latencies, failures };
    },
  };
}

async function atticRun(
  unpinned = false,
  writeEveryMs?: number,
): Promise<{
  writes?: { latencies: number[]; failures: number[] };
  live: string;
  rssSplit: string;
  idleRss: number;
  first: number;
  rescan: number;
  files: number;
  busy: number[];
  idle: number[];
  rss: number;
}> {
  const a = await startAttic({ unpinned });
  try {
    const idle = await idleLatencies(a);
    const idleRss = rssMiB(a.pid);
    const created = await a.api("POST", "/api/v1/watched-folders", { name: "Tree", path: TREE });
    if (created.status !== 201) throw new Error(`create: ${created.status} ${JSON.stringify(created.body)}`);
    const id = (created.body as Folder).id;
    const busy: number[] = [];
    const sampler = rssSampler(a.pid);
    const writes = writeEveryMs === undefined ? undefined : writer(a, writeEveryMs);
    const first = await awaitScan(a, id, "", busy);
    sampler.stop();
    const written = await writes?.stop();
    const again = await a.api("POST", `/api/v1/watched-folders/${id}/scan`, {});
    if (again.status !== 202) throw new Error(`scan: ${again.status}`);
    const second = await awaitScan(a, id, first.last_scan_finished_at!);
    const live = await liveCheck(a, second);
    return {
      writes: written,
      live,
      rssSplit: sampler.peak(),
      first: scanSeconds(first),
      rescan: scanSeconds(second),
      files: second.files_indexed,
      busy,
      idle,
      rss: a.peakRssMiB(),
      idleRss,
    };
  } finally {
    await a.stop();
  }
}

/** "200k", "1M": the tree's size for the figure's name (the tree is a flag). */
const size = (n: number) => (n >= 1e6 ? `${+(n / 1e6).toFixed(2)}M` : `${Math.round(n / 1000)}k`);

async function main(): Promise<void> {
  await ensureTree();
  const find = await findSeconds();
  const peer = await copypartyRuns();
  if ("missing" in peer) say(`index: copyparty skipped: ${peer.missing}`);
  const runs = [];
  for (let i = 0; i < RUNS; i++) runs.push(await atticRun());
  // Once more on both CPUs, as on a NAS: the scan's writes then go to a thread of their own.
  const both = args.cpus === "both" ? await atticRun(true, WRITE_EVERY_MS) : undefined;
  const rss = Math.max(...runs.map((r) => r.rss));
  const files = runs[0]?.files ?? 0;
  const idleRss = Math.max(...runs.map((r) => r.idleRss));
  const listing = await listingRun();
  const note = `${files} files indexed; find median of ${find.length}; idle server RSS before the scan ${idleRss.toFixed(0)} MiB`;
  const base = {
    benchmark: "index",
    unit: "s",
    referenceName: "find (warm)",
    higherIsBetter: false,
    atticPeakRssMiB: rss,
  };
  const busy = runs.flatMap((r) => r.busy);
  const idle = runs.flatMap((r) => r.idle);
  const figures: Figure[] = [
    figure({
      ...base,
      metric: `first scan, ${size(files)} files`,
      attic: median(runs.map((r) => r.first)),
      reference: median(find),
      atticSamples: runs.map((r) => r.first),
      referenceSamples: find,
      note,
    }),
    ...("missing" in peer
      ? []
      : [
          figure({
            ...base,
            metric: `first scan, ${size(files)} files, against the peer`,
            referenceName: `copyparty -e2dsa (to the end of indexing; its peak RSS ${peer.rssMiB.toFixed(0)} MiB)`,
            attic: median(runs.map((r) => r.first)),
            reference: median(peer.seconds),
            atticSamples: runs.map((r) => r.first),
            referenceSamples: peer.seconds,
            note,
          }),
        ]),
    figure({
      ...base,
      metric: "unchanged rescan",
      attic: median(runs.map((r) => r.rescan)),
      reference: median(find),
      atticSamples: runs.map((r) => r.rescan),
      referenceSamples: find,
      note,
    }),
    figure({
      ...base,
      metric: "GET /health p99 during first scan",
      unit: "ms",
      referenceName: "same, idle",
      attic: percentile(busy, 99),
      reference: percentile(idle, 99),
      atticSamples: [percentile(busy, 50), Math.max(...busy)],
      referenceSamples: [percentile(idle, 50), Math.max(...idle)],
      note: `${busy.length} requests; samples = p50, max`,
    }),
    ...(both
      ? [
          figure({
            ...base,
            metric: `first scan, ${size(files)} files, Attic on both CPUs`,
            attic: both.first,
            reference: median(find),
            atticSamples: [both.first],
            referenceSamples: find,
            atticPeakRssMiB: both.rss,
            note: `Attic unpinned (scans write on a thread of their own); find pinned to one CPU; ${both.rssSplit}`,
          }),
          figure({
            ...base,
            metric: "GET /health p99 during first scan, Attic on both CPUs",
            unit: "ms",
            referenceName: "same, idle",
            attic: percentile(both.busy, 99),
            reference: percentile(both.idle, 99),
            atticSamples: [percentile(both.busy, 50), Math.max(...both.busy)],
            referenceSamples: [percentile(both.idle, 50), Math.max(...both.idle)],
            atticPeakRssMiB: both.rss,
            note: `${both.busy.length} requests; samples = p50, max${both.writes ? `; with a directory created every ${WRITE_EVERY_MS} ms meanwhile` : ""}`,
          }),
          ...(both.writes
            ? [
                figure({
                  ...base,
                  metric: `POST /directories every ${WRITE_EVERY_MS} ms during first scan, Attic on both CPUs, p99`,
                  unit: "ms",
                  referenceName: "same, p50",
                  attic: percentile(both.writes.latencies, 99),
                  reference: percentile(both.writes.latencies, 50),
                  atticSamples: [Math.max(...both.writes.latencies)],
                  referenceSamples: [],
                  atticPeakRssMiB: both.rss,
                  note: `${both.writes.latencies.length} writes, ${both.writes.failures.length} not 201${both.writes.failures.length ? ` (${[...new Set(both.writes.failures)].join(", ")})` : ""}; samples = max`,
                }),
              ]
            : []),
        ]
      : []),
    ...(["first", "deep"] as const).map((which) =>
      figure({
        ...base,
        metric: `GET /directories/{id}/children, ${size(listing.total)}-entry directory, ${which} page (${PAGE})`,
        unit: "ms",
        referenceName: "same, p50",
        attic: percentile(listing[which], 99),
        reference: percentile(listing[which], 50),
        atticSamples: listing[which],
        referenceSamples: [],
        note: `p99 against p50 of ${listing[which].length} requests${which === "deep" ? `, offset ${listing.total - PAGE}` : ""}`,
      }),
    ),
  ];
  for (const r of runs) say(`index: RSS during the first scan: ${r.rssSplit}; after the rescan: ${r.live}`);
  for (const f of figures) printFigure(f);
  if (process.env.BENCH_RESULTS_FILE) {
    writeFileSync(process.env.BENCH_RESULTS_FILE, JSON.stringify(figures, null, 2));
  }
  if (process.env.BENCH_KEEP_TREE === "0") rmSync(TREE, { recursive: true, force: true });
}

await main();
