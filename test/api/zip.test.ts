import { execFile } from "node:child_process";
import {
  closeSync,
  createWriteStream,
  ftruncateSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readdirSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { promisify } from "node:util";
import { crc32 } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import yauzl from "yauzl";
import { SECURITY_HEADERS } from "../../src/platform/security-headers.ts";
import { createUser, type Session } from "../helpers/accounts.ts";
import { mkdir, upload } from "../helpers/files.ts";
import { hasProgram } from "../helpers/programs.ts";
import { startServer, type TestServer } from "../helpers/server.ts";
import { waitFor } from "./watched.helpers.ts";

/** Info-ZIP unzip (what most people's tools are built on) is on PATH; if not, said on stderr (CI installs it). */
function hasUnzip(check: string): boolean {
  if (hasProgram("unzip")) return true;
  process.stderr.write(`zip tests: unzip not installed, ${check} skipped\n`);
  return false;
}

/**
 * Info-ZIP `unzip` with `args`, in locale `lang` (LC_ALL) and time zone `tz`:
 * everything it printed, whatever its exit status (1 for a warning).
 * Asynchronous: the server under test runs in this process.
 */
async function runUnzip(args: string[], lang: string, tz = "UTC"): Promise<string> {
  const env = { ...process.env, LC_ALL: lang, TZ: tz };
  try {
    const { stdout, stderr } = await promisify(execFile)("unzip", args, { env, maxBuffer: 1 << 20 });
    return stdout + stderr;
  } catch (err) {
    const { stdout = "", stderr = "" } = err as { stdout?: string; stderr?: string };
    return `${stdout}${stderr}${String(err)}`;
  }
}

/**
 * `unzip -t` on an archive file in the C locale (a service under `env -i`,
 * cron, a bare container), where unzip turns a UTF-8 name into #Uxxxx escapes
 * and so compares the local and central names at their most fragile: its
 * output, or undefined where unzip is not installed.
 */
async function unzipTest(file: string): Promise<string | undefined> {
  if (!hasUnzip("`unzip -t`")) return undefined;
  return runUnzip(["-t", file], "C");
}

/**
 * Zip downloads (issue 16): a folder and a selection, streamed, stored, with
 * the tree's names (UTF-8) as paths, nothing the caller may not read, and a
 * link form (stream token) for browsers. Archives are read back with yauzl,
 * a reader independent of the writer, checking every CRC-32.
 */
describe("zip downloads", () => {
  let s: TestServer;
  let admin: string;
  let kid: Session;
  let photos: { id: string };
  let plageAt: Date;

  /** Names and contents of every entry, read back with yauzl, each file's CRC-32 checked. */
  const unzip = (bytes: Buffer): Promise<Record<string, string>> =>
    new Promise((resolve, reject) => {
      const out: Record<string, string> = {};
      yauzl.fromBuffer(bytes, { lazyEntries: true }, (err, zip) => {
        if (err || !zip) return reject(err);
        zip.on("error", reject);
        zip.on("end", () => resolve(out));
        zip.on("entry", (entry: yauzl.Entry) => {
          if (entry.fileName.endsWith("/")) {
            out[entry.fileName] = "/";
            return zip.readEntry();
          }
          zip.openReadStream(entry, (e, stream) => {
            if (e || !stream) return reject(e);
            const chunks: Buffer[] = [];
            stream.on("data", (c: Buffer) => chunks.push(c));
            stream.on("end", () => {
              const data = Buffer.concat(chunks);
              if (crc32(data) !== entry.crc32) return reject(new Error(`bad CRC for ${entry.fileName}`));
              if (entry.compressionMethod !== 0) return reject(new Error(`${entry.fileName} is compressed`));
              out[entry.fileName] = data.toString("utf8");
              zip.readEntry();
            });
          });
        });
        zip.readEntry();
      });
    });
  const get = async (token: string, path: string, init: RequestInit = {}) => {
    const r = await fetch(s.url + path, {
      ...init,
      headers: { authorization: `Bearer ${token}`, ...(init.headers ?? {}) },
    });
    return { status: r.status, headers: r.headers, bytes: Buffer.from(await r.arrayBuffer()) };
  };

  beforeAll(async () => {
    s = await startServer();
    admin = await s.login();
    kid = await createUser(s, admin, "zipkid");
    photos = await mkdir(s, admin, "Photos");
    const summer = await mkdir(s, admin, "Été 2024", photos.id);
    const hidden = await mkdir(s, admin, "Hidden", photos.id);
    await s.api("PUT", "/api/v1/grants", { token: admin, body: { directory_id: hidden.id, grants: [] } });
    plageAt = new Date(
      (await upload(s, admin, "plage.txt", "sable", { parentId: summer.id })).body.updated_at,
    );
    await upload(s, admin, "写真.txt", "photo", { parentId: photos.id });
    await upload(s, admin, "secret.txt", "no", { parentId: hidden.id });
    await mkdir(s, admin, "Empty", photos.id);
  });
  afterAll(async () => {
    await s.close();
  });

  it("zips a folder with its tree's names, byte-exact, with a Content-Length", async () => {
    const r = await get(admin, `/api/v1/directories/${photos.id}/zip`);
    expect(r.status).toBe(200);
    expect(r.headers.get("content-type")).toBe("application/zip");
    // The security table's headers reach a zip written straight to the Node response.
    for (const [k, v] of Object.entries(SECURITY_HEADERS)) expect(r.headers.get(k), k).toBe(v);
    expect(r.headers.get("content-disposition")).toContain("Photos.zip");
    expect(Number(r.headers.get("content-length"))).toBe(r.bytes.length);
    const file = join(mkdtempSync(join(tmpdir(), "attic-zip-")), "Photos.zip");
    writeFileSync(file, r.bytes);
    const verdict = await unzipTest(file);
    if (verdict !== undefined) expect(verdict).toMatch(/^No errors detected/m);
    expect(await unzip(r.bytes)).toEqual({
      "Photos/": "/",
      "Photos/Empty/": "/",
      "Photos/Hidden/": "/",
      "Photos/Hidden/secret.txt": "no",
      "Photos/写真.txt": "photo",
      "Photos/Été 2024/": "/",
      "Photos/Été 2024/plage.txt": "sable",
    });
  });

  it("extracts with Info-ZIP to the tree's UTF-8 names and modification times, in any time zone", async (ctx) => {
    if (!hasUnzip("extraction with unzip")) return ctx.skip();
    const r = await get(admin, `/api/v1/directories/${photos.id}/zip`);
    const dir = mkdtempSync(join(tmpdir(), "attic-unzip-"));
    const file = join(dir, "Photos.zip");
    writeFileSync(file, r.bytes);
    // A UTF-8 locale, where unzip writes the names as they are, and a time zone far from UTC:
    // the DOS time alone would be read as Tokyo's local time, 9 hours off.
    const out = join(dir, "out");
    expect(await runUnzip(["-q", "-d", out, file], "C.UTF-8", "Asia/Tokyo")).toBe("");
    expect(readdirSync(out, { recursive: true }).sort()).toEqual([
      "Photos",
      "Photos/Empty",
      "Photos/Hidden",
      "Photos/Hidden/secret.txt",
      "Photos/Été 2024",
      "Photos/Été 2024/plage.txt",
      "Photos/写真.txt",
    ]);
    expect(statSync(join(out, "Photos/Été 2024/plage.txt")).mtimeMs).toBe(
      Math.floor(plageAt.getTime() / 1000) * 1000,
    );
    rmSync(dir, { recursive: true, force: true });
  });

  it("leaves out what the caller may not read", async () => {
    const r = await get(kid.token, `/api/v1/directories/${photos.id}/zip`);
    expect(r.status).toBe(200);
    const names = Object.keys(await unzip(r.bytes));
    expect(names).not.toContain("Photos/Hidden/");
    expect(names).not.toContain("Photos/Hidden/secret.txt");
    expect(names).toContain("Photos/Été 2024/plage.txt");
  });

  it("zips a selection of one folder, and refuses one across folders", async () => {
    const list = await s.api("GET", `/api/v1/directories/${photos.id}/children`, { token: admin });
    const byName = Object.fromEntries(
      list.body.files.map((f: { name: string; id: string }) => [f.name, f.id]),
    );
    const r = await get(admin, "/api/v1/files/zip", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ ids: [byName["写真.txt"], byName["Été 2024"]] }),
    });
    expect(r.status).toBe(200);
    expect(await unzip(r.bytes)).toEqual({
      "写真.txt": "photo",
      "Été 2024/": "/",
      "Été 2024/plage.txt": "sable",
    });
    const top = await s.api("GET", "/api/v1/files", { token: admin });
    const across = await s.api("POST", "/api/v1/files/zip", {
      token: admin,
      body: { ids: [byName["写真.txt"], top.body.files[0].id] },
    });
    expect(across.status).toBe(400);
    expect((await s.api("POST", "/api/v1/files/zip", { token: admin, body: { ids: ["nope"] } })).status).toBe(
      400,
    );
  });

  it("serves a folder's zip through a stream-token link, and 404 to others", async () => {
    const st = await s.api("POST", `/api/v1/files/${photos.id}/stream-token`, { token: admin });
    expect(st.status).toBe(200);
    const r = await fetch(
      `${s.url}/api/v1/directories/${photos.id}/zip?st=${encodeURIComponent(st.body.token)}`,
    );
    expect(r.status).toBe(200);
    expect(Object.keys(await unzip(Buffer.from(await r.arrayBuffer())))).toContain("Photos/写真.txt");
    const outsider = await s.api("POST", "/api/v1/auth/login", {
      body: { username: "zipkid", password: "wrong" },
    });
    expect(outsider.status).toBe(401);
    const hidden = (
      await s.api("GET", `/api/v1/directories/${photos.id}/children`, { token: admin })
    ).body.files.find((f: { name: string }) => f.name === "Hidden");
    expect((await get(kid.token, `/api/v1/directories/${hidden.id}/zip`)).status).toBe(404);
  });

  it("runs two zip downloads of one user at once; a third answers 429 until one ends, an aborted one too", async () => {
    // Big enough that an unread download stays open (the socket's buffers fill and the zip waits).
    const big = await mkdir(s, admin, "Big zip");
    await upload(s, admin, "film.bin", new Uint8Array(32 << 20).fill(3), { parentId: big.id });
    const path = `/api/v1/directories/${big.id}/zip`;
    const open = async () => {
      const ac = new AbortController();
      const r = await fetch(s.url + path, {
        headers: { authorization: `Bearer ${admin}` },
        signal: ac.signal,
      });
      return { status: r.status, ac };
    };
    const head = async () => (await get(admin, path, { method: "HEAD" })).status;
    const first = await open();
    const second = await open();
    expect([first.status, second.status]).toEqual([200, 200]);
    const third = await get(admin, path);
    expect(third.status).toBe(429);
    expect(JSON.parse(third.bytes.toString()).error.code).toBe("RATE_LIMIT_EXCEEDED");
    // Another user's downloads are theirs to count.
    expect((await get(kid.token, `/api/v1/directories/${photos.id}/zip`)).status).toBe(200);
    first.ac.abort();
    await waitFor(head, (status) => status === 200);
    second.ac.abort();
    await waitFor(head, (status) => status === 200);
    // Both given back: two more run again.
    const again = [await open(), await open()];
    expect(again.map((d) => d.status)).toEqual([200, 200]);
    for (const d of again) d.ac.abort();
  });

  it("stops a zip whose file cannot be read once opened, and goes on serving (it was an uncaught exception)", async () => {
    const dir = await mkdir(s, admin, "Unreadable");
    const up = await upload(s, admin, "gone.bin", "bytes that will not read", { parentId: dir.id });
    const hash = up.body.hash as string;
    const blob = join(s.dataDir, "blobs", hash.slice(0, 2), hash.slice(2, 4), hash);
    // Still there for the existence check, but reading it fails (EISDIR).
    rmSync(blob);
    mkdirSync(blob);
    const r = await fetch(`${s.url}/api/v1/directories/${dir.id}/zip`, {
      headers: { authorization: `Bearer ${admin}` },
    });
    await expect(r.arrayBuffer()).rejects.toThrow();
    expect((await fetch(`${s.url}/health`)).status).toBe(200);
    rmSync(blob, { recursive: true });
  });

  it("zips a selection of a folder through the folder's link (the UI's multi-selection download)", async () => {
    const list = await s.api("GET", `/api/v1/directories/${photos.id}/children`, { token: admin });
    const byName = Object.fromEntries(
      list.body.files.map((f: { name: string; id: string }) => [f.name, f.id]),
    );
    const st = (await s.api("POST", `/api/v1/files/${photos.id}/stream-token`, { token: admin })).body.token;
    const link = (ids: string[]) =>
      `${s.url}/api/v1/directories/${photos.id}/zip?st=${encodeURIComponent(st)}&ids=${ids.join(",")}`;
    const r = await fetch(link([byName["写真.txt"], byName["Été 2024"]]));
    expect(r.status).toBe(200);
    expect(r.headers.get("content-disposition")).toContain("Photos.zip");
    expect(await unzip(Buffer.from(await r.arrayBuffer()))).toEqual({
      "写真.txt": "photo",
      "Été 2024/": "/",
      "Été 2024/plage.txt": "sable",
    });
    // Only items directly in that folder: a deeper one, or one elsewhere, is refused.
    const summer = await s.api("GET", `/api/v1/directories/${byName["Été 2024"]}/children`, { token: admin });
    expect((await fetch(link([summer.body.files[0].id]))).status).toBe(400);
    expect((await fetch(link(["not-an-id"]))).status).toBe(400);
  });
});

/**
 * Zip64: a folder past 4 GiB (a sparse file on a watched drive, so nothing
 * large is uploaded); and a folder of many entries, on the same drive.
 */
describe("zip downloads past 4 GiB, and of many entries", () => {
  let s: TestServer;
  let admin: string;
  let host: string;
  const SIZE = 4 * 1024 ** 3 + 4096;
  /** Enough for a central directory past 64 KiB (yazl's own length estimate then counts a Zip64 end record). */
  const MANY = 1000;

  beforeAll(async () => {
    host = mkdtempSync(join(tmpdir(), "attic-zip64-"));
    mkdirSync(join(host, "big"));
    const fd = openSync(join(host, "big", "huge.bin"), "w");
    ftruncateSync(fd, SIZE);
    closeSync(fd);
    writeFileSync(join(host, "big", "small.txt"), "after the big one");
    mkdirSync(join(host, "many"));
    for (let i = 0; i < MANY; i++) writeFileSync(join(host, "many", `été-${i}.txt`), String(i));
    // No background hashing: the archive is what is measured here, not the hasher reading 4 GiB.
    s = await startServer({ watch: { allowed_roots: [host], hash_concurrency: 0 } });
    admin = await s.login();
  });
  afterAll(async () => {
    await s.close();
    rmSync(host, { recursive: true, force: true });
  });

  /** Mounts `dir` of the host as a watched folder, waits for its `entries` to be indexed, and asks for its zip. */
  const zipOfMounted = async (name: string, dir: string, entries: number, timeoutMs?: number) => {
    const w = await s.api("POST", "/api/v1/watched-folders", {
      token: admin,
      body: { name, path: join(host, dir) },
    });
    expect(w.status).toBe(201);
    await waitFor(
      () => s.api("GET", `/api/v1/directories/${w.body.directory_id}/children?limit=1`, { token: admin }),
      (r) => r.body.total === entries,
      timeoutMs,
    );
    const res = await fetch(`${s.url}/api/v1/directories/${w.body.directory_id}/zip`, {
      headers: { authorization: `Bearer ${admin}` },
    });
    expect(res.status).toBe(200);
    return res;
  };

  it("writes a Zip64 archive that a reader opens, with every byte and CRC right", async () => {
    const res = await zipOfMounted("Big", "big", 2);
    const file = join(host, "out.zip");
    await pipeline(Readable.fromWeb(res.body as never), createWriteStream(file));
    expect(statSync(file).size).toBe(Number(res.headers.get("content-length")));
    const seen = await new Promise<Record<string, number>>((resolve, reject) => {
      const out: Record<string, number> = {};
      yauzl.open(file, { lazyEntries: true }, (err, zip) => {
        if (err || !zip) return reject(err);
        zip.on("end", () => resolve(out));
        zip.on("entry", (entry: yauzl.Entry) => {
          if (entry.fileName.endsWith("/")) return zip.readEntry();
          zip.openReadStream(entry, (e, stream) => {
            if (e || !stream) return reject(e);
            let crc = 0;
            let n = 0;
            stream.on("data", (c: Buffer) => {
              crc = crc32(c, crc);
              n += c.length;
            });
            stream.on("end", () => {
              if (crc !== entry.crc32) return reject(new Error(`bad CRC for ${entry.fileName}`));
              out[entry.fileName] = n;
              zip.readEntry();
            });
          });
        });
        zip.readEntry();
      });
    });
    expect(seen).toEqual({ "Big/huge.bin": SIZE, "Big/small.txt": 17 });
    const verdict = await unzipTest(file);
    if (verdict !== undefined) expect(verdict).toMatch(/^No errors detected/m);
    rmSync(file);
  }, 180_000);

  it("gives the length of a zip whose central directory passes 64 KiB, and it tests clean", async () => {
    const res = await zipOfMounted("Many", "many", MANY, 60_000);
    const bytes = Buffer.from(await res.arrayBuffer());
    expect(Number(res.headers.get("content-length"))).toBe(bytes.length);
    const file = join(host, "many.zip");
    writeFileSync(file, bytes);
    const verdict = await unzipTest(file);
    if (verdict !== undefined) expect(verdict).toMatch(/^No errors detected/m);
    rmSync(file);
  }, 120_000);
});
