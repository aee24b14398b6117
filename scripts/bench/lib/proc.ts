import { type ChildProcess, spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import net from "node:net";

/** CPU the server under test is pinned to, and the one the load generator uses (as lib.sh). */
export const SRV_CPU = process.env.SRV_CPU ?? "0";
export const CLI_CPU = process.env.CLI_CPU ?? "1";
const PIN = process.env.PIN !== "0";

/** Prefixes `cmd args` with `taskset -c CPU` when pinning is on (taskset execs, so the pid is the command's). */
export function pinned(cpu: string, cmd: string, args: string[]): [string, string[]] {
  return PIN ? ["taskset", ["-c", cpu, cmd, ...args]] : [cmd, args];
}

export interface RunResult {
  code: number | null;
  stdout: string;
  stderr: string;
  seconds: number;
}

/**
 * Runs a command to completion (no shell) and collects its output. Bounded:
 * it is killed after `timeoutMs`, so a stuck tool cannot hang the suite.
 */
export function run(
  cmd: string,
  args: string[],
  opts: { timeoutMs?: number; env?: NodeJS.ProcessEnv; cpu?: string } = {},
): Promise<RunResult> {
  const [c, a] = opts.cpu ? pinned(opts.cpu, cmd, args) : [cmd, args];
  return new Promise((resolve, reject) => {
    const start = performance.now();
    const child = spawn(c, a, { env: opts.env ?? process.env, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d: Buffer) => (stdout += d.toString()));
    child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
    const timer = setTimeout(() => child.kill("SIGKILL"), opts.timeoutMs ?? 120_000);
    child.on("error", reject);
    child.on("close", (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr, seconds: (performance.now() - start) / 1000 });
    });
  });
}

/**
 * A field of /proc/PID/status in MiB (VmRSS: the resident set; VmHWM: its
 * peak; RssAnon: heaps and caches; RssFile: mapped files, the binary); NaN
 * when the process is gone.
 */
export function statusMiB(pid: number | undefined, field: string): number {
  if (!pid) return Number.NaN;
  try {
    const m = new RegExp(`${field}:\\s+(\\d+)\\s+kB`).exec(readFileSync(`/proc/${pid}/status`, "utf8"));
    return m ? Number(m[1]) / 1024 : Number.NaN;
  } catch {
    return Number.NaN;
  }
}

/** Peak resident set size (VmHWM) of a live process, in MiB; NaN when it is gone. */
export const peakRssMiB = (pid: number | undefined): number => statusMiB(pid, "VmHWM");

/** A TCP port free right now on 127.0.0.1 (for servers that cannot report theirs). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.on("error", reject);
    srv.listen(0, "127.0.0.1", () => {
      const port = (srv.address() as net.AddressInfo).port;
      srv.close(() => resolve(port));
    });
  });
}

/** Resolves once something accepts TCP connections on 127.0.0.1:port, or rejects after `timeoutMs`. */
export async function waitPort(port: number, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const ok = await new Promise<boolean>((resolve) => {
      const s = net.connect(port, "127.0.0.1", () => {
        s.destroy();
        resolve(true);
      });
      s.on("error", () => resolve(false));
    });
    if (ok) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`nothing listens on port ${port} after ${timeoutMs} ms`);
}

/** SIGTERM, then SIGKILL after `graceMs`; resolves when the process has exited. */
export async function stopChild(child: ChildProcess, graceMs = 10_000): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((r) => child.once("exit", () => r()));
  child.kill("SIGTERM");
  const timer = setTimeout(() => child.kill("SIGKILL"), graceMs);
  await exited;
  clearTimeout(timer);
}
