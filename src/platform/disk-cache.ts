import { mkdir, readdir, readFile, rename, stat, unlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { newId } from "./ids.ts";

const KEY = /^[0-9a-f]{16,128}$/;

/**
 * A directory of derived files (thumbnails) kept under `maxBytes`: the least
 * recently used go first. Entries are `<dir>/<key[0..2]>/<key><ext>`, written
 * to a temp name and renamed, so a reader never sees half a file. What is
 * already on disk is indexed once in the background at start (oldest first,
 * by modification time); until then nothing is evicted, which only delays
 * the cap. Losing an entry is harmless: it is made again.
 */
export class DiskCache {
  /** file path → size, least recently used first (a Map keeps insertion order). */
  private readonly entries = new Map<string, number>();
  private total = 0;
  readonly ready: Promise<void>;

  private readonly dir: string;
  private readonly maxBytes: number;
  private readonly ext: string;

  constructor(dir: string, maxBytes: number, ext = "") {
    this.dir = dir;
    this.maxBytes = maxBytes;
    this.ext = ext;
    this.ready = this.index().catch(() => {});
  }

  private pathOf(key: string): string {
    if (!KEY.test(key)) throw new Error("invalid cache key");
    return join(this.dir, key.slice(0, 2), `${key}${this.ext}`);
  }

  private async index(): Promise<void> {
    const found: { path: string; size: number; mtime: number }[] = [];
    for (const sub of await readdir(this.dir).catch(() => [] as string[])) {
      for (const name of await readdir(join(this.dir, sub)).catch(() => [] as string[])) {
        const path = join(this.dir, sub, name);
        if (name.endsWith(".tmp")) {
          await unlink(path).catch(() => {});
          continue;
        }
        const s = await stat(path).catch(() => undefined);
        if (s?.isFile()) found.push({ path, size: s.size, mtime: s.mtimeMs });
      }
    }
    found.sort((a, b) => a.mtime - b.mtime);
    for (const f of found) if (!this.entries.has(f.path)) this.add(f.path, f.size);
    await this.evict();
  }

  private add(path: string, size: number): void {
    const before = this.entries.get(path);
    if (before !== undefined) {
      this.total -= before;
      this.entries.delete(path);
    }
    this.entries.set(path, size);
    this.total += size;
  }

  private async evict(): Promise<void> {
    while (this.total > this.maxBytes && this.entries.size > 0) {
      const [path, size] = this.entries.entries().next().value as [string, number];
      this.entries.delete(path);
      this.total -= size;
      await unlink(path).catch(() => {});
    }
  }

  /** The bytes cached under `key`, or undefined; a hit becomes the most recently used. */
  async get(key: string): Promise<Buffer | undefined> {
    const path = this.pathOf(key);
    const bytes = await readFile(path).catch(() => undefined);
    if (bytes) this.add(path, bytes.byteLength);
    return bytes;
  }

  /** Stores `bytes` under `key`, then evicts the least recently used past the cap. */
  async put(key: string, bytes: Buffer): Promise<void> {
    const path = this.pathOf(key);
    await mkdir(join(path, ".."), { recursive: true });
    const tmp = `${path}.${newId()}.tmp`;
    await writeFile(tmp, bytes);
    await rename(tmp, path);
    this.add(path, bytes.byteLength);
    await this.evict();
  }

  /** Bytes and entries currently counted (for metrics and tests). */
  get usage(): { bytes: number; entries: number } {
    return { bytes: this.total, entries: this.entries.size };
  }
}
