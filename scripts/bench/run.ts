/**
 * `npm run bench [-- NAME...]`: runs Attic's benchmarks, each against its
 * reference in the same run on the same data, prints both with their ratio and
 * Attic's peak RSS, and writes JSON (and a Markdown table) under bench-results/.
 *
 * Names: download, upload, paths (small files, ranges, listing, metadata), api, startup, webdav, zip, playback, and search /
 * search-rest / index when scripts/bench/<name>.ts exist. These run as child processes
 * (`node scripts/bench/<name>.ts`) with BENCH_RESULTS_FILE set: a JSON array of
 * Figure objects (see lib/report.ts) written there is merged into the report.
 *
 * Environment: BENCH_WORK (scratch dir, default /tmp/attic-bench), PIN=0 (no
 * CPU pinning), SRV_CPU/CLI_CPU, DL_RUNS, UP_RUNS, WRK_RUNS, WRK_D, START_RUNS.
 */
import { spawn } from "node:child_process";
import { existsSync, readFileSync, rmSync } from "node:fs";
import { cpus, loadavg } from "node:os";
import { join, resolve } from "node:path";
import { apiBench } from "./api.ts";
import { downloadBench } from "./download.ts";
import { ATTIC_UNDER_TEST, WORK } from "./lib/attic.ts";
import { run } from "./lib/proc.ts";
import { type Figure, printFigure, say, writeResults } from "./lib/report.ts";
import { pathsBench } from "./paths.ts";
import { playbackBench } from "./playback.ts";
import { startupBench } from "./startup.ts";
import { uploadBench } from "./upload.ts";
import { webdavBench } from "./webdav.ts";
import { zipBench } from "./zip.ts";

const ROOT = resolve(import.meta.dirname, "../..");
const EXTERNAL_TIMEOUT_MS = 600_000;

const BUILTIN: Record<string, () => Promise<Figure[]>> = {
  download: downloadBench,
  upload: uploadBench,
  paths: pathsBench,
  api: apiBench,
  startup: startupBench,
  webdav: webdavBench,
  zip: zipBench,
  playback: playbackBench,
};

/**
 * Runs scripts/bench/<name>.ts (owned by another area) with its output shown
 * as it goes, and reads the figures it leaves in BENCH_RESULTS_FILE (it prints
 * them itself). Bounded by EXTERNAL_TIMEOUT_MS: first runs build cached data.
 */
async function external(name: string): Promise<Figure[]> {
  const out = join(WORK, `${name}-figures.json`);
  rmSync(out, { force: true });
  const child = spawn(process.execPath, [join(import.meta.dirname, `${name}.ts`)], {
    env: { ...process.env, BENCH_RESULTS_FILE: out, BENCH_WORK: WORK },
    stdio: "inherit",
  });
  const timer = setTimeout(() => child.kill("SIGKILL"), EXTERNAL_TIMEOUT_MS);
  const code = await new Promise<number | null>((r) => child.once("exit", (c) => r(c)));
  clearTimeout(timer);
  if (code !== 0) throw new Error(`${name}.ts exited with ${code}`);
  return existsSync(out) ? (JSON.parse(readFileSync(out, "utf8")) as Figure[]) : [];
}

function available(): string[] {
  const ext = ["search", "search-rest", "index"].filter((n) =>
    existsSync(join(import.meta.dirname, `${n}.ts`)),
  );
  return [...Object.keys(BUILTIN), ...ext];
}

async function machine(): Promise<Record<string, unknown>> {
  const nginx = await run("nginx", ["-v"]).catch(() => undefined);
  const git = await run("git", ["-C", ROOT, "rev-parse", "--short", "HEAD"]).catch(() => undefined);
  return {
    cpus: cpus().length,
    cpuModel: cpus()[0]?.model,
    node: process.version,
    attic: ATTIC_UNDER_TEST,
    nginx: nginx?.stderr.trim(),
    commit: git?.stdout.trim(),
    loadavgAtStart: loadavg(),
  };
}

async function main(): Promise<number> {
  const names = process.argv.slice(2).filter((a) => !a.startsWith("-"));
  const all = available();
  const unknown = names.filter((n) => !all.includes(n));
  if (unknown.length) {
    say(`unknown benchmark(s): ${unknown.join(", ")}; available: ${all.join(", ")}`);
    return 2;
  }
  const info = await machine();
  process.stdout.write(`attic bench: ${JSON.stringify(info)}\n`);
  const figures: Figure[] = [];
  const failed: string[] = [];
  for (const name of names.length ? names : all) {
    const start = performance.now();
    process.stdout.write(`== ${name} (load ${loadavg()[0]!.toFixed(2)}) ==\n`);
    try {
      const builtin = BUILTIN[name];
      const got = builtin ? await builtin() : await external(name);
      if (builtin) got.forEach(printFigure);
      figures.push(...got);
    } catch (err) {
      failed.push(name);
      say(`${name}: FAILED: ${err instanceof Error ? err.message : String(err)}`);
    }
    say(`${name}: ${((performance.now() - start) / 1000).toFixed(1)} s`);
  }
  const file = writeResults(join(ROOT, "bench-results"), { machine: info, figures });
  process.stdout.write(`results: ${file}\n`);
  return failed.length ? 1 : 0;
}

main().then(
  (code) => process.exit(code),
  (err) => {
    say(`bench: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
    process.exit(1);
  },
);
