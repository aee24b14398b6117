import { existsSync, linkSync, mkdirSync, readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { WORK } from "./attic.ts";
import { run } from "./proc.ts";

export const GiB = 1024 * 1024 * 1024;

/**
 * $WORK/rand1g.bin: 1 GiB of random (incompressible) bytes, made once and
 * reused across runs (borrowed from /tmp/perf when the reference scripts made it).
 */
export async function bigFile(): Promise<string> {
  mkdirSync(WORK, { recursive: true });
  const path = join(WORK, "rand1g.bin");
  if (existsSync(path) && statSync(path).size === GiB) return path;
  const shared = "/tmp/perf/rand1g.bin";
  if (existsSync(shared) && statSync(shared).size === GiB) {
    try {
      linkSync(shared, path);
      return path;
    } catch {}
  }
  const r = await run("bash", [
    "-c",
    `head -c ${GiB} /dev/urandom > '${path}.tmp' && mv '${path}.tmp' '${path}'`,
  ]);
  if (r.code !== 0) throw new Error(`cannot create ${path}: ${r.stderr}`);
  return path;
}

/** Reads a file once so every server starts from a warm page cache. */
export async function warm(path: string): Promise<void> {
  await run("bash", ["-c", `cat '${path}' > /dev/null`], { timeoutMs: 120_000 }).catch(() => undefined);
}

/** The largest regular file under `dir` (where Attic keeps an uploaded blob), or undefined. */
export function largestFile(dir: string): { path: string; size: number } | undefined {
  let best: { path: string; size: number } | undefined;
  const walk = (d: string) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const p = join(d, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.isFile()) {
        const size = statSync(p).size;
        if (!best || size > best.size) best = { path: p, size };
      }
    }
  };
  if (existsSync(dir)) walk(dir);
  return best;
}
