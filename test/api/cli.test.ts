import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import http from "node:http";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { VERSION } from "../../src/version.ts";
import { testKeys } from "../helpers/server.ts";

const MAIN = resolve(import.meta.dirname, "../../src/main.ts");
const dirs: string[] = [];
const children: ChildProcess[] = [];

afterEach(() => {
  for (const c of children.splice(0)) if (c.exitCode === null) c.kill("SIGKILL");
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function tempDir(): string {
  const d = mkdtempSync(join(tmpdir(), "attic-cli-"));
  dirs.push(d);
  return d;
}

/** Environment for a quick serve: test keys, cheap hashing, no inherited ATTIC_* settings. */
function serveEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const keys = testKeys();
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) if (!k.startsWith("ATTIC_")) env[k] = v;
  return {
    ...env,
    ATTIC_AUTH_PRIVATE_KEY_FILE: keys.private_key_file,
    ATTIC_AUTH_PUBLIC_KEY_FILE: keys.public_key_file,
    ATTIC_AUTH_INITIAL_ADMIN_PASSWORD: "correct-Horse-battery-9",
    ATTIC_AUTH_PASSWORD_HASH_MEMORY_KIB: "1024",
    ATTIC_AUTH_PASSWORD_HASH_ITERATIONS: "1",
    ATTIC_LOG_LEVEL: "warn",
    ...extra,
  };
}

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs the CLI to completion. */
function run(args: string[], env: NodeJS.ProcessEnv = serveEnv()): Promise<Run> {
  return new Promise((done, fail) => {
    const child = spawn(process.execPath, [MAIN, ...args], { env, cwd: tempDir() });
    children.push(child);
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d) => (stdout += d));
    child.stderr.on("data", (d) => (stderr += d));
    child.on("error", fail);
    child.on("close", (code) => done({ code, stdout, stderr }));
  });
}

/** Starts `serve` and resolves once it printed its listening line. */
function serve(args: string[]): Promise<{
  child: ChildProcess;
  port: number;
  exited: Promise<number | null>;
  /** Resolves once the log (stderr) contains `text`. */
  logged: (text: string) => Promise<void>;
}> {
  return new Promise((ready, fail) => {
    const child = spawn(process.execPath, [MAIN, "serve", "--port", "0", "--host", "127.0.0.1", ...args], {
      env: serveEnv({ ATTIC_LOG_LEVEL: "info" }),
      cwd: tempDir(),
    });
    children.push(child);
    const logged = (text: string) =>
      new Promise<void>((r) => {
        const check = () => {
          if (!err.includes(text)) return;
          child.stderr.off("data", check);
          r();
        };
        child.stderr.on("data", check);
        check();
      });
    const exited = new Promise<number | null>((r) => child.on("exit", (code) => r(code)));
    let out = "";
    let err = "";
    child.stderr.on("data", (d) => (err += d));
    child.stdout.on("data", (d) => {
      out += d;
      const m = /^attic listening on http:\/\/127\.0\.0\.1:(\d+)$/m.exec(out);
      if (m) ready({ child, port: Number(m[1]), exited, logged });
    });
    child.on("exit", (code) => fail(new Error(`serve exited ${code}: ${err}`)));
  });
}

describe("attic CLI", () => {
  it("--version prints the version", async () => {
    const r = await run(["--version"]);
    expect(r).toMatchObject({ code: 0, stdout: `attic ${VERSION}\n` });
  });

  it("--help and serve --help describe the commands and options", async () => {
    const help = await run(["--help"]);
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/attic serve/);
    expect(help.stdout).toMatch(/ATTIC_<SECTION>_<KEY>/);
    const serveHelp = await run(["serve", "--help"]);
    expect(serveHelp.code).toBe(0);
    for (const flag of ["--config", "--data-dir", "--host", "--port"])
      expect(serveHelp.stdout).toContain(flag);
  });

  it("exits 2 on an unknown command or flag", async () => {
    expect((await run(["frobnicate"])).code).toBe(2);
    const r = await run(["serve", "--prot", "80"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("--prot");
  });

  it("exits 2 naming the key for a bad flag, environment or file value", async () => {
    const flag = await run(["serve", "--port", "abc", "--data-dir", tempDir()]);
    expect(flag.code).toBe(2);
    expect(flag.stderr).toContain("server.port");

    const env = await run(["serve", "--data-dir", tempDir()], serveEnv({ ATTIC_SERVER_PORT: "-1" }));
    expect(env.code).toBe(2);
    expect(env.stderr).toContain("server.port");

    const file = join(tempDir(), "attic.toml");
    writeFileSync(file, "[server]\nport = 0\nlisten_backlog = 5\n");
    const toml = await run(["serve", "--config", file, "--data-dir", tempDir()]);
    expect(toml.code).toBe(2);
    expect(toml.stderr).toContain("listen_backlog");
  });

  it("exits 1 with a one-line reason when the port is taken", async () => {
    const first = await serve(["--data-dir", tempDir()]);
    const r = await run([
      "serve",
      "--host",
      "127.0.0.1",
      "--port",
      String(first.port),
      "--data-dir",
      tempDir(),
    ]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^attic: cannot start: .*EADDRINUSE/m);
    expect(r.stderr).not.toMatch(/^\s+at /m);
    first.child.kill("SIGTERM");
    expect(await first.exited).toBe(0);
  });

  it("serves, then on SIGTERM finishes the in-flight request and exits 0", async () => {
    const { child, port, exited, logged } = await serve(["--data-dir", tempDir()]);
    const body = JSON.stringify({ username: "admin", password: "correct-Horse-battery-9" });
    const answered = new Promise<{ status: number; text: string }>((resolveAnswer, reject) => {
      const req = http.request(
        {
          host: "127.0.0.1",
          port,
          method: "POST",
          path: "/api/v1/auth/login",
          headers: {
            "content-type": "application/json",
            "content-length": Buffer.byteLength(body),
            // The server's "100 Continue" proves it has read the headers: the request is in flight.
            expect: "100-continue",
          },
        },
        (res) => {
          let text = "";
          res.on("data", (d) => (text += d));
          res.on("end", () => resolveAnswer({ status: res.statusCode ?? 0, text }));
        },
      );
      req.on("error", reject);
      req.on("continue", async () => {
        child.kill("SIGTERM");
        await logged("shutting down");
        req.end(body);
      });
      req.flushHeaders();
    });
    const res = await answered;
    expect(res.status).toBe(200);
    expect(JSON.parse(res.text).access_token).toEqual(expect.any(String));
    expect(await exited).toBe(0);
  });
});
