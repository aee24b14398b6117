import { mkdirSync, mkdtempSync, readdirSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { DiskCache } from "../../src/platform/disk-cache.ts";

const key = (n: number) => n.toString(16).padStart(32, "0");
const files = (dir: string) =>
  readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => e.name)
    .sort();

describe("DiskCache", () => {
  const dirs: string[] = [];
  const fresh = () => {
    const d = mkdtempSync(join(tmpdir(), "attic-cache-"));
    dirs.push(d);
    return d;
  };
  afterEach(() => {
    for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
  });

  it("keeps the total under its cap, evicting the least recently used", async () => {
    const dir = fresh();
    const cache = new DiskCache(dir, 250, ".webp");
    await cache.ready;
    await cache.put(key(1), Buffer.alloc(100, 1));
    await cache.put(key(2), Buffer.alloc(100, 2));
    expect(await cache.get(key(1))).toBeDefined(); // 1 is now the most recently used
    await cache.put(key(3), Buffer.alloc(100, 3)); // 300 > 250: 2 goes
    expect(files(dir)).toEqual([`${key(1)}.webp`, `${key(3)}.webp`]);
    expect(await cache.get(key(2))).toBeUndefined();
    expect(cache.usage).toEqual({ bytes: 200, entries: 2 });
  });

  it("indexes what an earlier run left, oldest first, and removes its temp files", async () => {
    const dir = fresh();
    mkdirSync(join(dir, "00"));
    for (const n of [1, 2, 3]) {
      const p = join(dir, "00", `${key(n)}.webp`);
      writeFileSync(p, Buffer.alloc(100));
      utimesSync(p, n * 1000, n * 1000);
    }
    writeFileSync(join(dir, "00", `${key(9)}.webp.x.tmp`), "half");
    const cache = new DiskCache(dir, 200, ".webp");
    await cache.ready;
    expect(files(dir)).toEqual([`${key(2)}.webp`, `${key(3)}.webp`]);
  });

  it("refuses keys that could name another path", async () => {
    const cache = new DiskCache(fresh(), 1000);
    await expect(cache.put("../../etc/passwd", Buffer.from("x"))).rejects.toThrow(/invalid cache key/);
  });
});
