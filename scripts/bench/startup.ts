import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import http from "node:http";
import { join, resolve } from "node:path";
import { atticEnv, WORK, waitListening } from "./lib/attic.ts";
import { freePort, peakRssMiB, statusMiB, stopChild } from "./lib/proc.ts";
import { type Figure, figure, say } from "./lib/report.ts";
import { median } from "./lib/stats.ts";

const RUNS = Number(process.env.START_RUNS ?? 10);
const ROOT = resolve(import.meta.dirname, "../..");
const BINARY = join(ROOT, "build/attic");
const HELLO = "require('node:http').createServer((q,s)=>s.end('ok')).listen(+process.env.PORT,'127.0.0.1')";
/** How long a started server is left alone before its idle RSS is read. */
const IDLE_MS = Number(process.env.START_IDLE_MS ?? 2000);

/** One GET; resolves with the status, or 0 when nothing answers yet. */
function probe(url: string): Promise<number> {
  return new Promise((resolveStatus) => {
    const req = http.get(url, { agent: false }, (res) => {
      res.resume();
      resolveStatus(res.statusCode ?? 0);
    });
    req.on("error", () => resolveStatus(0));
  });
}

/** CPU time (user + system, all threads) a live process has used, in ms (clock ticks of 10 ms). */
function cpuMs(pid: number | undefined): number {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ");
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return Number.NaN;
  }
}

/**
 * Spawns a server and polls `path` every 2 ms (bounded to 30 s): milliseconds
 * to the first 200, the CPU time it had used by then, VmHWM at that moment,
 * and VmRSS (all and anonymous) after IDLE_MS left alone.
 */
async function timeToFirst200(cmd: string, args: string[], env: NodeJS.ProcessEnv, path: string) {
  const port = await freePort();
  const start = performance.now();
  const child = spawn(
    cmd,
    args.map((x) => x.replace("{PORT}", String(port))),
    {
      env: { ...env, PORT: String(port) },
      stdio: "ignore",
      cwd: WORK,
    },
  );
  try {
    while (performance.now() - start < 30_000) {
      if ((await probe(`http://127.0.0.1:${port}${path}`)) === 200) {
        const ms = performance.now() - start;
        const cpu = cpuMs(child.pid);
        const rss = peakRssMiB(child.pid);
        await new Promise((r) => setTimeout(r, IDLE_MS));
        return {
          ms,
          cpu,
          rss,
          idleRss: statusMiB(child.pid, "VmRSS"),
          idleAnon: statusMiB(child.pid, "RssAnon"),
        };
      }
      if (child.exitCode !== null) throw new Error(`${cmd} exited with ${child.exitCode}`);
      await new Promise((r) => setTimeout(r, 2));
    }
    throw new Error(`${cmd} gave no 200 on ${path} within 30 s`);
  } finally {
    await stopChild(child);
  }
}

/** Runs the data dir's first start (bootstrap, admin hash) once, so the timed starts are restarts. */
async function prepare(cmd: string, args: string[], dataDir: string) {
  const child = spawn(cmd, [...args, "--port", "0", "--data-dir", dataDir], {
    env: atticEnv(),
    stdio: "pipe",
  });
  await waitListening(child);
  await stopChild(child);
}

/**
 * Start-up of the single executable (or `node src/main.ts` when build/attic is
 * missing) to its first /health 200 (wall time and CPU time), and its RSS
 * once idle, against a bare Node hello server; plus the binary size.
 */
export async function startupBench(): Promise<Figure[]> {
  const hasBinary = existsSync(BINARY);
  if (!hasBinary) say("startup: build/attic missing (run npm run build); timing node src/main.ts instead");
  const [cmd, base] = hasBinary ? [BINARY, []] : [process.execPath, [join(ROOT, "src/main.ts")]];
  const dataDir = mkdtempSync(join(WORK, "startup-"));
  const serveArgs = [...base, "serve", "--host", "127.0.0.1"];
  try {
    await prepare(cmd, serveArgs, dataDir);
    const attic: Awaited<ReturnType<typeof timeToFirst200>>[] = [];
    const ref: Awaited<ReturnType<typeof timeToFirst200>>[] = [];
    const env = atticEnv();
    const args = [...serveArgs, "--port", "{PORT}", "--data-dir", dataDir];
    for (let i = 0; i < RUNS; i++) {
      attic.push(await timeToFirst200(cmd, args, env, "/health"));
      ref.push(await timeToFirst200(process.execPath, ["-e", HELLO], process.env, "/"));
    }
    const label = hasBinary ? "build/attic" : "node src/main.ts";
    const of = <K extends keyof (typeof attic)[number]>(runs: typeof attic, k: K) => runs.map((r) => r[k]);
    const peak = median(of(attic, "rss"));
    /** One figure of the runs: Attic's and the hello server's medians of `key`, lower is better. */
    const startupFigure = (metric: string, key: "ms" | "cpu" | "idleRss", unit: string, note: string) =>
      figure({
        benchmark: "startup",
        metric: `${label} ${metric}`,
        unit,
        attic: median(of(attic, key)),
        reference: median(of(ref, key)),
        referenceName: "node hello server",
        higherIsBetter: false,
        atticPeakRssMiB: peak,
        atticSamples: of(attic, key),
        referenceSamples: of(ref, key),
        note,
      });
    const figures = [
      startupFigure(
        "spawn to first /health 200",
        "ms",
        "ms",
        `median of ${RUNS}, restart on an existing data dir, RSS at first answer`,
      ),
      startupFigure(
        "CPU to first /health 200",
        "cpu",
        "ms",
        "user + system, all threads, 10 ms ticks: steadier than wall time on a shared machine",
      ),
      startupFigure(
        `RSS after ${IDLE_MS / 1000} s idle`,
        "idleRss",
        "MiB",
        `anonymous ${median(of(attic, "idleAnon")).toFixed(1)} MiB (hello ${median(of(ref, "idleAnon")).toFixed(1)}); the rest is file pages, mostly the binary's`,
      ),
    ];
    if (hasBinary) figures.push(sizeFigure());
    return figures;
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}

function sizeFigure(): Figure {
  const mib = statSync(BINARY).size / 1048576;
  const nodeMib = statSync(process.execPath).size / 1048576;
  return figure({
    benchmark: "startup",
    metric: "build/attic size",
    unit: "MiB",
    attic: mib,
    reference: nodeMib,
    referenceName: "node binary",
    higherIsBetter: false,
    atticPeakRssMiB: Number.NaN,
    atticSamples: [mib],
    referenceSamples: [nodeMib],
  });
}
