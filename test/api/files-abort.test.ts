import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { startRawUpload } from "../helpers/files.ts";
import { ADMIN_PASSWORD, startServer, type TestServer, testKeys } from "../helpers/server.ts";

const MAIN = resolve(import.meta.dirname, "../../src/main.ts");

const filesIn = (dir: string) =>
  existsSync(dir)
    ? readdirSync(dir, { recursive: true, withFileTypes: true })
        .filter((e) => e.isFile())
        .map((e) => e.name)
    : [];

/** Polls `check` until it holds (bounded: fails the test after `tries` rounds). */
async function until(check: () => boolean | Promise<boolean>, what: string, tries = 200): Promise<void> {
  for (let i = 0; i < tries; i++) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error(`gave up waiting for ${what}`);
}

async function login(url: string): Promise<string> {
  const r = await fetch(`${url}/api/v1/auth/login`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ username: "admin", password: ADMIN_PASSWORD }),
  });
  return ((await r.json()) as { access_token: string }).access_token;
}

async function fileCount(url: string, token: string): Promise<number> {
  const r = await fetch(`${url}/api/v1/files`, { headers: { authorization: `Bearer ${token}` } });
  return ((await r.json()) as { total: number }).total;
}

describe("aborted uploads leave nothing", () => {
  let s: TestServer;
  let token: string;
  beforeAll(async () => {
    s = await startServer();
    token = await s.login();
  });
  afterAll(() => s.close());

  it("removes the temp file and stores no row and no blob when the client disconnects mid-body", async () => {
    const up = await startRawUpload(
      s.url,
      token,
      "partial.bin",
      Buffer.alloc(256 * 1024, 7),
      10 * 1024 * 1024,
    );
    await until(() => filesIn(join(s.dataDir, "tmp")).length === 1, "the temp file");
    up.abort();
    await until(() => filesIn(join(s.dataDir, "tmp")).length === 0, "temp cleanup");
    expect(filesIn(join(s.dataDir, "blobs"))).toEqual([]);
    expect(await fileCount(s.url, token)).toBe(0);
    // The server is fine afterwards.
    const form = new FormData();
    form.set("file", new Blob(["after"]), "after.txt");
    expect((await s.api("POST", "/api/v1/files", { token, body: form })).status).toBe(201);
  });
});

describe("orphan blobs", () => {
  it("removes the blobs a crash left pending and unreferenced at start-up, without walking the store", async () => {
    const first = await startServer();
    const dir = first.dataDir;
    const token = await first.login();
    const form = new FormData();
    form.set("file", new Blob(["kept"]), "kept.txt");
    const kept = await first.api("POST", "/api/v1/files", { token, body: form });
    // A committed upload leaves no pending marker behind.
    await until(() => filesIn(join(dir, "blobs-pending")).length === 0, "the upload's marker to go");
    await first.server.close();
    // What a crash between a blob's rename and its row's commit leaves: the blob and its marker.
    const orphan = "ab".repeat(32);
    mkdirSync(join(dir, "blobs", "ab", "ab"), { recursive: true });
    writeFileSync(join(dir, "blobs", "ab", "ab", orphan), "left by a crash");
    writeFileSync(join(dir, "blobs-pending", orphan), "");
    // A pending marker whose blob is referenced: the blob stays, the marker goes.
    writeFileSync(join(dir, "blobs-pending", kept.body.hash), "");
    const second = await startServer({}, { keepDataDir: dir });
    try {
      await until(() => !filesIn(join(dir, "blobs")).includes(orphan), "the orphan sweep");
      expect(filesIn(join(dir, "blobs"))).toEqual([kept.body.hash]);
      await until(() => filesIn(join(dir, "blobs-pending")).length === 0, "the markers to go");
    } finally {
      await second.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("kill -9 during an upload", () => {
  const children: ChildProcess[] = [];
  let dataDir: string;
  afterEach(() => {
    for (const c of children.splice(0)) if (c.exitCode === null) c.kill("SIGKILL");
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  function serve(dir: string): Promise<{ child: ChildProcess; url: string }> {
    const keys = testKeys();
    const env: NodeJS.ProcessEnv = {};
    for (const [k, v] of Object.entries(process.env)) if (!k.startsWith("ATTIC_")) env[k] = v;
    Object.assign(env, {
      ATTIC_AUTH_PRIVATE_KEY_FILE: keys.private_key_file,
      ATTIC_AUTH_PUBLIC_KEY_FILE: keys.public_key_file,
      ATTIC_AUTH_INITIAL_ADMIN_PASSWORD: ADMIN_PASSWORD,
      ATTIC_AUTH_PASSWORD_HASH_MEMORY_KIB: "1024",
      ATTIC_AUTH_PASSWORD_HASH_ITERATIONS: "1",
      ATTIC_LOG_LEVEL: "warn",
    });
    const child = spawn(
      process.execPath,
      [MAIN, "serve", "--data-dir", dir, "--host", "127.0.0.1", "--port", "0"],
      {
        env,
      },
    );
    children.push(child);
    return new Promise((ok, fail) => {
      let out = "";
      child.stdout?.on("data", (d) => {
        out += d;
        const m = /attic listening on (http:\/\/\S+)/.exec(out);
        if (m) ok({ child, url: m[1]! });
      });
      child.on("exit", (code) => fail(new Error(`attic exited with ${code} before listening`)));
    });
  }

  it("finds no partial file, no temp file and no row after a restart", async () => {
    dataDir = mkdtempSync(join(tmpdir(), "attic-kill-"));
    const first = await serve(dataDir);
    const token = await login(first.url);
    const up = await startRawUpload(
      first.url,
      token,
      "big.bin",
      Buffer.alloc(512 * 1024, 1),
      50 * 1024 * 1024,
    );
    await until(() => filesIn(join(dataDir, "tmp")).length === 1, "the temp file");
    const exited = new Promise((r) => first.child.once("exit", r));
    first.child.kill("SIGKILL");
    await exited;
    up.abort();
    expect(filesIn(join(dataDir, "tmp"))).toHaveLength(1); // the crash left it behind

    const second = await serve(dataDir);
    expect(filesIn(join(dataDir, "tmp"))).toEqual([]);
    expect(filesIn(join(dataDir, "blobs"))).toEqual([]);
    expect(await fileCount(second.url, await login(second.url))).toBe(0);
  });
});
