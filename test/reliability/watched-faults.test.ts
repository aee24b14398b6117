import { execFileSync } from "node:child_process";
import { chmodSync, chownSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ChildServer, loginAdmin, report, spawnServer } from "./helpers/child-server.ts";
import { type Client, client } from "./helpers/files-client.ts";

const SRC = resolve(import.meta.dirname, "../../src/main.ts");
/**
 * Root reads any file whatever its mode: run the server as nobody so mode 000
 * means unreadable, when nobody can read the checkout (not under /root, say);
 * otherwise as ourselves, where the unreadable cases become readable ones.
 */
const UID = process.getuid?.() === 0 && canRunAs(65534) ? 65534 : undefined;

function canRunAs(uid: number): boolean {
  try {
    execFileSync(process.execPath, ["-e", `require("fs").accessSync(${JSON.stringify(SRC)})`], {
      uid,
      gid: uid,
      stdio: "ignore",
    });
    return true;
  } catch {
    report(`cannot run the server as uid ${uid} (checkout unreadable); unreadable-file cases run as root`);
    return false;
  }
}
const OK_FILES = 20;

interface Folder {
  id: string;
  status: string;
  files_indexed: number;
  scan_errors: number;
  last_scan_finished_at?: string;
}

async function waitFor<T>(fn: () => Promise<T>, ok: (v: T) => boolean, ms: number): Promise<T> {
  const deadline = Date.now() + ms;
  let last = await fn();
  while (!ok(last)) {
    if (Date.now() > deadline) throw new Error(`not met within ${ms} ms; last ${JSON.stringify(last)}`);
    await new Promise((r) => setTimeout(r, 200));
    last = await fn();
  }
  return last;
}

/** A host folder with readable files, an unreadable file and directory, a FIFO and a non-UTF-8 name. */
function hostFolder(base: string): string {
  const host = join(base, "host");
  mkdirSync(join(host, "locked"), { recursive: true });
  for (let i = 0; i < OK_FILES; i++) writeFileSync(join(host, `ok-${i}.txt`), `content ${i}\n`);
  writeFileSync(join(host, "secret.txt"), "secret");
  writeFileSync(join(host, "locked/inner.txt"), "inner");
  writeFileSync(Buffer.from(join(host, "bad-\xff.txt"), "latin1"), "bad name");
  execFileSync("mkfifo", [join(host, "pipe.txt")]);
  if (UID !== undefined) execFileSync("chown", ["-R", `${UID}:${UID}`, host]);
  chmodSync(join(host, "secret.txt"), 0o000);
  chmodSync(join(host, "locked"), 0o000);
  return host;
}

describe("watched folder faults", () => {
  const base = mkdtempSync(join(tmpdir(), "attic-wfault-"));
  const dataDir = join(base, "data");
  let host: string;
  let s: ChildServer;
  let c: Client;
  let folder: Folder;
  const get = async (id: string) => (await c.json("GET", `/api/v1/watched-folders/${id}`)).body as Folder;

  beforeAll(async () => {
    chmodSync(base, 0o755);
    mkdirSync(dataDir);
    if (UID !== undefined) chownSync(dataDir, UID, UID);
    host = hostFolder(base);
    s = await spawnServer(
      dataDir,
      { ATTIC_WATCH_DEBOUNCE: "1", ATTIC_WATCH_POLL_INTERVAL: "2" },
      { uid: UID },
    );
    c = client(s.url, await loginAdmin(s.url));
  });
  afterAll(async () => {
    if (s && (s.child.exitCode !== null || s.child.signalCode !== null)) {
      report(`server died (${s.child.exitCode ?? s.child.signalCode}): ${s.stderr().slice(-4000)}`);
    }
    await s?.stop();
    rmSync(base, { recursive: true, force: true });
    rmSync(`${dataDir}-keys`, { recursive: true, force: true });
  });

  it("indexes what it can read, answers clearly for what it cannot, never hangs on a FIFO", async () => {
    const created = await c.json("POST", "/api/v1/watched-folders", { name: "host", path: host });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    folder = await waitFor(
      () => get((created.body as Folder).id),
      (f) => f.status !== "scanning" && !!f.last_scan_finished_at,
      30_000,
    );
    report(
      `watched scan: status ${folder.status}, ${folder.files_indexed} indexed, ${folder.scan_errors} errors`,
    );
    const list = await c.json("GET", `/api/v1/watched-folders/${folder.id}/files?limit=1000`);
    const files = (list.body as { files: { id: string; name: string; type: string }[] }).files;
    const names = files.map((f) => f.name);
    for (let i = 0; i < OK_FILES; i++) expect(names).toContain(`ok-${i}.txt`);
    for (const f of files.filter((x) => x.type !== "directory")) {
      const got = await c.download(f.id);
      const text = new TextDecoder().decode(got.bytes);
      if (f.name.startsWith("ok-")) expect(got.status, f.name).toBe(200);
      else
        expect([200, 403, 404, 410, 503], `${f.name} -> ${got.status} ${text.slice(0, 100)}`).toContain(
          got.status,
        );
      if (got.status === 200 && f.name === "pipe.txt") expect(got.bytes.length).toBe(0);
    }
    expect((await fetch(`${s.url}/health`)).status).toBe(200);
  });

  it("keeps serving when the folder is removed while watched, downloads in flight", async () => {
    const list = await c.json("GET", `/api/v1/watched-folders/${folder.id}/files?limit=1000`);
    const ids = (list.body as { files: { id: string; name: string }[] }).files
      .filter((f) => f.name.startsWith("ok-"))
      .map((f) => f.id);
    const statuses: number[] = [];
    let stop = false;
    const downloader = async (w: number) => {
      for (let i = w; !stop; i++) {
        // A file removed mid-body can only be signalled by cutting the connection (-1 here).
        statuses.push(
          await c.download(ids[i % ids.length]!).then(
            (r) => r.status,
            () => -1,
          ),
        );
      }
    };
    const workers = Array.from({ length: 8 }, (_, w) => downloader(w));
    await new Promise((r) => setTimeout(r, 300));
    rmSync(host, { recursive: true, force: true });
    const after = await waitFor(
      () => get(folder.id),
      (f) => f.status === "offline" || f.status === "error" || f.files_indexed === 0,
      30_000,
    );
    stop = true;
    await Promise.all(workers);
    const counts: Record<number, number> = {};
    for (const x of statuses) counts[x] = (counts[x] ?? 0) + 1;
    report(`watched folder removed: status ${after.status}; downloads meanwhile ${JSON.stringify(counts)}`);
    for (const st of statuses) expect([200, 404, 410, 503, -1]).toContain(st);
    expect(s.child.exitCode, `server died: ${s.stderr().slice(-2000)}`).toBeNull();
    expect((await c.upload("after-removal.txt", new TextEncoder().encode("still here"))).status).toBe(201);
    expect((await fetch(`${s.url}/health`)).status).toBe(200);
  });
});
