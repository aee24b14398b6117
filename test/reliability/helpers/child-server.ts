import { type ChildProcess, spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { chownSync, copyFileSync, mkdirSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { ADMIN_PASSWORD, testKeys } from "../../helpers/server.ts";

const MAIN = resolve(import.meta.dirname, "../../../src/main.ts");

/** A real `attic serve` process (the CLI, not an in-process server), so it can be killed -9. */
export interface ChildServer {
  url: string;
  pid: number;
  dataDir: string;
  child: ChildProcess;
  /** Everything the process wrote to stderr (its warn/error logs). */
  stderr(): string;
  /** Peak RSS (VmHWM) so far, MiB. */
  peakRssMiB(): number;
  /** SIGKILL, no cleanup: the crash being tested. Resolves when the process is gone. */
  kill9(): Promise<void>;
  /** SIGTERM and wait (the graceful path). */
  stop(): Promise<void>;
}

/**
 * Spawns `node src/main.ts serve --port 0` on `dataDir` with cheap password
 * hashing, the shared test key pair, no rate limits (unless `env` says
 * otherwise) and resolves once it prints its listening line.
 */
export async function spawnServer(
  dataDir: string,
  env: Record<string, string> = {},
  opts: { uid?: number } = {},
): Promise<ChildServer> {
  const keys = opts.uid === undefined ? testKeys() : keysFor(dataDir, opts.uid);
  const child = spawn(
    process.execPath,
    [MAIN, "serve", "--host", "127.0.0.1", "--port", "0", "--data-dir", dataDir, "--log-level", "warn"],
    {
      env: {
        ...process.env,
        ATTIC_AUTH_INITIAL_ADMIN_PASSWORD: ADMIN_PASSWORD,
        ATTIC_AUTH_PASSWORD_HASH_MEMORY_KIB: "1024",
        ATTIC_AUTH_PASSWORD_HASH_ITERATIONS: "1",
        ATTIC_AUTH_PRIVATE_KEY_FILE: keys.private_key_file,
        ATTIC_AUTH_PUBLIC_KEY_FILE: keys.public_key_file,
        ATTIC_RATE_LIMIT_ENABLED: "false",
        ...env,
      },
      stdio: ["ignore", "pipe", "pipe"],
      ...(opts.uid === undefined ? {} : { uid: opts.uid, gid: opts.uid }),
    },
  );
  let err = "";
  child.stderr.on("data", (d: Buffer) => (err += d.toString()));
  const url = await new Promise<string>((ok, fail) => {
    let out = "";
    const timer = setTimeout(() => fail(new Error(`no listening line in 60 s; stderr: ${err}`)), 60_000);
    child.stdout.on("data", (d: Buffer) => {
      out += d.toString();
      const m = /attic listening on (http\S+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        ok(m[1]!);
      }
    });
    child.once("exit", (code) => {
      clearTimeout(timer);
      fail(new Error(`server exited (${code}) before listening; stderr: ${err}`));
    });
  });
  const exited = new Promise<void>((r) => child.once("exit", () => r()));
  const gone = () => child.exitCode !== null || child.signalCode !== null;
  return {
    url,
    pid: child.pid!,
    dataDir,
    child,
    stderr: () => err,
    peakRssMiB: () => peakRssMiB(child.pid!),
    async kill9() {
      if (!gone()) child.kill("SIGKILL");
      await exited;
    },
    async stop() {
      if (!gone()) child.kill("SIGTERM");
      const t = setTimeout(() => child.kill("SIGKILL"), 15_000);
      await exited;
      clearTimeout(t);
    },
  };
}

/** Copies of the test keys readable by `uid` (the shared ones are root's, mode 0600), beside the data dir. */
function keysFor(dataDir: string, uid: number): { private_key_file: string; public_key_file: string } {
  const shared = testKeys();
  const dir = `${dataDir}-keys`;
  mkdirSync(dir, { recursive: true });
  const out = { private_key_file: join(dir, "private.pem"), public_key_file: join(dir, "public.pem") };
  copyFileSync(shared.private_key_file, out.private_key_file);
  copyFileSync(shared.public_key_file, out.public_key_file);
  for (const p of [dir, out.private_key_file, out.public_key_file]) chownSync(p, uid, uid);
  return out;
}

/** VmHWM of a process in MiB (NaN once it has exited). */
export function peakRssMiB(pid: number): number {
  try {
    const m = /VmHWM:\s+(\d+)\s+kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
    return m ? Number(m[1]) / 1024 : Number.NaN;
  } catch {
    return Number.NaN;
  }
}

/** Logs in as admin over HTTP and returns the bearer token. */
export async function loginAdmin(url: string): Promise<string> {
  const res = await fetch(`${url}/api/v1/auth/login`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ username: "admin", password: ADMIN_PASSWORD }),
  });
  if (res.status !== 200) throw new Error(`login failed: ${res.status} ${await res.text()}`);
  return ((await res.json()) as { access_token: string }).access_token;
}

/** Lowercase hex SHA-256, the `hash` of a File. */
export const sha256 = (data: Uint8Array | string) => createHash("sha256").update(data).digest("hex");

/** The data dir's database file. */
export const dbFile = (dataDir: string) => join(dataDir, "attic.db");

/** Writes a line to the test output (reports such as p99; the suite asserts no timings). */
export function report(line: string): void {
  process.stderr.write(`[reliability] ${line}\n`);
}
