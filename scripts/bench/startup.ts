import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, rmSync, statSync } from "node:fs";
import http from "node:http";
import { join, resolve } from "node:path";
import { atticEnv, WORK, waitListening } from "./lib/attic.ts";
import { freePort, peakRssMiB, stopChild } from "./lib/proc.ts";
import { type Figure, figure, say } from "./lib/report.ts";
import { median } from "./lib/stats.ts";

const RUNS = Number(process.env.START_RUNS ?? 10);
const ROOT = resolve(import.meta.dirname, "../..");
const BINARY = join(ROOT, "build/attic");
const HELLO = "require('node:http').createServer((q,s)=>s.end('ok')).listen(+process.env.PORT,'127.0.0.1')";

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

/** Milliseconds from spawn to the first 200 on `path`, polling every 2 ms (bounded to 30 s). */
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
        return { ms: performance.now() - start, rss: peakRssMiB(child.pid) };
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
 * missing) to its first /health 200, against a bare Node hello server, plus the binary size.
 */
export async function startupBench(): Promise<Figure[]> {
  const hasBinary = existsSync(BINARY);
  if (!hasBinary) say("startup: build/attic missing (run npm run build); timing node src/main.ts instead");
  const [cmd, base] = hasBinary ? [BINARY, []] : [process.execPath, [join(ROOT, "src/main.ts")]];
  const dataDir = mkdtempSync(join(WORK, "startup-"));
  const serveArgs = [...base, "serve", "--host", "127.0.0.1"];
  try {
    await prepare(cmd, serveArgs, dataDir);
    const attic: number[] = [];
    const ref: number[] = [];
    const rss: number[] = [];
    const env = atticEnv();
    const args = [...serveArgs, "--port", "{PORT}", "--data-dir", dataDir];
    for (let i = 0; i < RUNS; i++) {
      const x = await timeToFirst200(cmd, args, env, "/health");
      attic.push(x.ms);
      rss.push(x.rss);
      ref.push((await timeToFirst200(process.execPath, ["-e", HELLO], process.env, "/")).ms);
    }
    const label = hasBinary ? "build/attic" : "node src/main.ts";
    const figures = [
      figure({
        benchmark: "startup",
        metric: `${label} spawn to first /health 200`,
        unit: "ms",
        attic: median(attic),
        reference: median(ref),
        referenceName: "node hello server",
        higherIsBetter: false,
        atticPeakRssMiB: median(rss),
        atticSamples: attic,
        referenceSamples: ref,
        note: `median of ${RUNS}, restart on an existing data dir, RSS at first answer`,
      }),
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
