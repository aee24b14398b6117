import { type ChildProcess, spawn } from "node:child_process";
import { generateKeyPairSync } from "node:crypto";
import { createWriteStream, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { CLI_CPU, peakRssMiB, pinned, run, SRV_CPU, stopChild } from "./proc.ts";

export const ADMIN_PASSWORD = "correct-Horse-battery-9";
/** Scratch space for big files and data dirs; never inside the repository. */
export const WORK = resolve(process.env.BENCH_WORK ?? "/tmp/attic-bench");
const ROOT = resolve(import.meta.dirname, "../../..");

export interface AtticProcess {
  url: string;
  pid: number;
  dataDir: string;
  child: ChildProcess;
  /** Bearer token of the admin. */
  token: string;
  peakRssMiB(): number;
  /** Authenticated JSON request. */
  api(method: string, path: string, body?: unknown): Promise<{ status: number; body: unknown }>;
  stop(): Promise<void>;
}

/** One RS256 pair for every benchmark server: generating 4096-bit keys at each start would skew nothing we measure but costs seconds. */
export function benchKeys(): Record<string, string> {
  const dir = join(WORK, "keys");
  const priv = join(dir, "private.pem");
  const pub = join(dir, "public.pem");
  if (!existsSync(priv) || !existsSync(pub)) {
    mkdirSync(dir, { recursive: true });
    const pair = generateKeyPairSync("rsa", {
      modulusLength: 4096,
      publicKeyEncoding: { type: "spki", format: "pem" },
      privateKeyEncoding: { type: "pkcs8", format: "pem" },
    });
    writeFileSync(priv, pair.privateKey, { mode: 0o600 });
    writeFileSync(pub, pair.publicKey);
  }
  return { ATTIC_AUTH_PRIVATE_KEY_FILE: priv, ATTIC_AUTH_PUBLIC_KEY_FILE: pub };
}

/** The environment every benchmark server runs with: no rate limit, quiet logs, long-lived tokens. */
export function atticEnv(): NodeJS.ProcessEnv {
  return {
    ...process.env,
    ...benchKeys(),
    ATTIC_RATE_LIMIT_ENABLED: "false",
    ATTIC_AUTH_INITIAL_ADMIN_PASSWORD: ADMIN_PASSWORD,
    ATTIC_AUTH_ACCESS_TOKEN_TTL: "2h",
    ATTIC_LOG_LEVEL: process.env.ATTIC_LOG_LEVEL_OVERRIDE ?? "warn",
  };
}

/** Resolves with the URL from the "attic listening on URL" line, or rejects when the process dies first. */
export function waitListening(child: ChildProcess, timeoutMs = 60_000): Promise<string> {
  return new Promise((resolveUrl, reject) => {
    let out = "";
    const timer = setTimeout(
      () => reject(new Error(`attic did not start in ${timeoutMs} ms: ${out}`)),
      timeoutMs,
    );
    child.stdout?.on("data", (d: Buffer) => {
      out += d.toString();
      const m = /attic listening on (http\S+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolveUrl(m[1]!.replace("0.0.0.0", "127.0.0.1"));
      }
    });
    // Attic's warn/error logs go to a file beside the data: a benchmark's own output stays readable.
    const logFile = join(WORK, `attic-${child.pid}.log`);
    child.stderr?.pipe(createWriteStream(logFile));
    let errTail = "";
    child.stderr?.on("data", (d: Buffer) => (errTail = (errTail + d.toString()).slice(-2000)));
    child.once("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`attic exited (${code}) before listening (log ${logFile}): ${out}${errTail}`));
    });
  });
}

/** The single executable when it is built (what households run), else the sources (BENCH_SOURCE=1 forces them). */
const BINARY = join(ROOT, "build/attic");
export const ATTIC_UNDER_TEST =
  existsSync(BINARY) && process.env.BENCH_SOURCE !== "1" ? "build/attic" : "node src/main.ts";

/**
 * Starts Attic (`build/attic serve --port 0`, or `node src/main.ts` without a
 * build) on a fresh (or given) data dir, pinned to the server CPU, and logs in as admin.
 */
export async function startAttic(opts: { dataDir?: string; unpinned?: boolean } = {}): Promise<AtticProcess> {
  mkdirSync(WORK, { recursive: true });
  const dataDir = opts.dataDir ?? mkdtempSync(join(WORK, "data-"));
  const fromBuild = ATTIC_UNDER_TEST === "build/attic";
  const args = [
    ...(fromBuild ? [] : [join(ROOT, "src/main.ts")]),
    "serve",
    "--host",
    "127.0.0.1",
    "--port",
    "0",
    "--data-dir",
    dataDir,
  ];
  const exe = fromBuild ? BINARY : process.execPath;
  const [cmd, a] = opts.unpinned ? [exe, args] : pinned(SRV_CPU, exe, args);
  const child = spawn(cmd, a, { env: atticEnv(), stdio: ["ignore", "pipe", "pipe"], cwd: WORK });
  const url = await waitListening(child);
  const login = await fetch(`${url}/api/v1/auth/login`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ username: "admin", password: ADMIN_PASSWORD }),
  });
  if (login.status !== 200) throw new Error(`login failed: ${login.status} ${await login.text()}`);
  const token = ((await login.json()) as { access_token: string }).access_token;
  return {
    url,
    pid: child.pid!,
    dataDir,
    child,
    token,
    peakRssMiB: () => peakRssMiB(child.pid),
    async api(method, path, body) {
      const res = await fetch(url + path, {
        method,
        headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      const text = await res.text();
      let parsed: unknown = text;
      try {
        parsed = JSON.parse(text);
      } catch {}
      return { status: res.status, body: parsed };
    },
    async stop() {
      await stopChild(child);
      if (!opts.dataDir) rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** A File record as the REST API returns it (the fields the benchmarks use). */
export interface FileRecord {
  id: string;
  name: string;
  size: number;
  hash?: string;
}

/**
 * Uploads `path` as multipart with curl (the client pinned to the client CPU)
 * and returns the record and the upload speed in MiB/s.
 */
export async function uploadWithCurl(a: AtticProcess, path: string, name: string) {
  const r = await run(
    "curl",
    [
      "-sS",
      "-H",
      `Authorization: Bearer ${a.token}`,
      "-F",
      `file=@${path};filename=${name}`,
      "-w",
      "\n%{http_code} %{speed_upload}",
      `${a.url}/api/v1/files`,
    ],
    { cpu: CLI_CPU, timeoutMs: 300_000 },
  );
  const lines = r.stdout.trimEnd().split("\n");
  const [code, speed] = (lines.pop() ?? "").split(" ");
  if (code !== "201")
    throw new Error(`upload of ${name} answered ${code}: ${lines.join("\n").slice(0, 500)}`);
  return { file: JSON.parse(lines.join("\n")) as FileRecord, mibPerSecond: Number(speed) / 1048576 };
}
