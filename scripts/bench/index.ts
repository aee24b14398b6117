/**
 * Indexing benchmark: `node scripts/bench/index.ts [--tree DIR] [--runs 3]` (or `npm run bench -- index`).
 *
 * Builds (once, under BENCH_WORK) the shared 200k-file / 10k-directory
 * synthetic tree with ../shared/bench/mktree.py, then in the same run:
 * `find` over the tree (warm, pinned to the server CPU) as the reference;
 * Attic (`node src/main.ts serve`, pinned) mounting the tree as a watched
 * folder: first scan, then an unchanged rescan, each timed by the scan's own
 * start/finish stamps; API latency (GET /health) while the first scan runs
 * next to the same when idle; peak RSS. Hashing is left on (as shipped).
 */
import { existsSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { type AtticProcess, startAttic, WORK } from "./lib/attic.ts";
import { run, SRV_CPU } from "./lib/proc.ts";
import { type Figure, figure, printFigure, say } from "./lib/report.ts";
import { median, percentile } from "./lib/stats.ts";

const MKTREE = resolve(import.meta.dirname, "../../../shared/bench/mktree.py");
const { values: args } = parseArgs({
  options: { tree: { type: "string", default: join(WORK, "tree") }, runs: { type: "string", default: "3" } },
});
const TREE = resolve(args.tree);
const RUNS = Number(args.runs);

interface Folder {
  id: string;
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

/** Current resident set (VmRSS) of a process, MiB. */
function rssMiB(pid: number): number {
  const m = /VmRSS:\s+(\d+)\s+kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
  return m ? Number(m[1]) / 1024 : Number.NaN;
}

async function atticRun(): Promise<{
  idleRss: number;
  first: number;
  rescan: number;
  files: number;
  busy: number[];
  idle: number[];
  rss: number;
}> {
  const a = await startAttic();
  try {
    const idle = await idleLatencies(a);
    const idleRss = rssMiB(a.pid);
    const created = await a.api("POST", "/api/v1/watched-folders", { name: "Tree", path: TREE });
    if (created.status !== 201) throw new Error(`create: ${created.status} ${JSON.stringify(created.body)}`);
    const id = (created.body as Folder).id;
    const busy: number[] = [];
    const first = await awaitScan(a, id, "", busy);
    const again = await a.api("POST", `/api/v1/watched-folders/${id}/scan`, {});
    if (again.status !== 202) throw new Error(`scan: ${again.status}`);
    const second = await awaitScan(a, id, first.last_scan_finished_at!);
    return {
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
  const runs = [];
  for (let i = 0; i < RUNS; i++) runs.push(await atticRun());
  const rss = Math.max(...runs.map((r) => r.rss));
  const files = runs[0]?.files ?? 0;
  const idleRss = Math.max(...runs.map((r) => r.idleRss));
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
  ];
  for (const f of figures) printFigure(f);
  if (process.env.BENCH_RESULTS_FILE) {
    writeFileSync(process.env.BENCH_RESULTS_FILE, JSON.stringify(figures, null, 2));
  }
  if (process.env.BENCH_KEEP_TREE === "0") rmSync(TREE, { recursive: true, force: true });
}

await main();
