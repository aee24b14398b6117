import { join } from "node:path";
import { CLI_CPU, run } from "./proc.ts";

export interface WrkResult {
  rps: number;
  mibPerSecond: number;
  /** Responses outside 2xx/3xx: a benchmark with any is not comparable. */
  non2xx: number;
  socketErrors: number;
  p99Ms: number;
}

const RANGE_LUA = join(import.meta.dirname, "..", "range.lua");

function toMs(v: string): number {
  const m = /^([\d.]+)(us|ms|s|m)$/.exec(v);
  if (!m) return Number.NaN;
  return Number(m[1]) * { us: 0.001, ms: 1, s: 1000, m: 60_000 }[m[2] as "us" | "ms" | "s" | "m"];
}

/** Parses wrk's report (run with --latency). */
export function parseWrk(out: string): WrkResult {
  const rps = Number(/Requests\/sec:\s+([\d.]+)/.exec(out)?.[1] ?? Number.NaN);
  const t = /Transfer\/sec:\s+([\d.]+)(B|KB|MB|GB)/.exec(out);
  const unit = { B: 1 / 1048576, KB: 1 / 1024, MB: 1, GB: 1024 }[(t?.[2] ?? "B") as "B" | "KB" | "MB" | "GB"];
  const errs = /Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)/.exec(out);
  return {
    rps,
    mibPerSecond: t ? Number(t[1]) * unit : Number.NaN,
    non2xx: Number(/Non-2xx or 3xx responses:\s+(\d+)/.exec(out)?.[1] ?? 0),
    socketErrors: errs ? errs.slice(1).reduce((s, x) => s + Number(x), 0) : 0,
    p99Ms: toMs(/^\s+99%\s+(\S+)/m.exec(out)?.[1] ?? ""),
  };
}

/**
 * One wrk run (1 thread, pinned to the client CPU), bounded by its duration.
 * `range` sends random Range requests through range.lua.
 */
export async function wrk(opts: {
  url: string;
  connections: number;
  seconds: number;
  authorization?: string;
  range?: { fileSize: number; length: number; seed: number };
}): Promise<WrkResult> {
  const args = ["-t1", `-c${opts.connections}`, `-d${opts.seconds}s`, "--timeout", "10s", "--latency"];
  if (opts.range) {
    args.push("-s", RANGE_LUA, opts.url, "--", String(opts.range.fileSize), String(opts.range.length));
    args.push(String(opts.range.seed));
    if (opts.authorization) args.push(opts.authorization);
  } else {
    if (opts.authorization) args.push("-H", `Authorization: ${opts.authorization}`);
    args.push(opts.url);
  }
  const r = await run("wrk", args, { cpu: CLI_CPU, timeoutMs: (opts.seconds + 30) * 1000 });
  if (r.code !== 0) throw new Error(`wrk failed (${r.code}): ${r.stderr || r.stdout}`);
  return parseWrk(r.stdout);
}
