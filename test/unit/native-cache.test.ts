import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { type CacheFile, cacheRoots, extractToCache } from "../../src/platform/native-cache.ts";

const base = mkdtempSync(join(tmpdir(), "attic-native-cache-"));
afterAll(() => rmSync(base, { recursive: true, force: true }));

let n = 0;
const freshRoot = () => join(base, `root-${n++}`);

/** Files of a fake addon, counting how often their bytes are read. */
function addonFiles() {
  const reads = { count: 0 };
  const file = (rel: string, text: string): CacheFile => ({
    rel,
    read: () => {
      reads.count++;
      return Buffer.from(text);
    },
  });
  return { reads, files: [file("@img/a/lib/a.node", "A"), file("@img/b/lib/libb.so.1", "B")] };
}

const readMain = (dir: string) => readFileSync(join(dir, "@img/a/lib/a.node"), "utf8");

describe("extractToCache", () => {
  it("extracts the files keeping their layout, then reuses the entry without reading again", () => {
    const root = freshRoot();
    const { reads, files } = addonFiles();
    expect(extractToCache("native-1", files, readMain, [root])).toBe("A");
    expect(readFileSync(join(root, "native-1/@img/b/lib/libb.so.1"), "utf8")).toBe("B");
    expect(reads.count).toBe(2);
    expect(extractToCache("native-1", files, readMain, [root])).toBe("A");
    expect(reads.count).toBe(2);
  });

  it("refuses a root other users can write to and uses the next one", () => {
    const shared = freshRoot();
    mkdirSync(shared, { recursive: true });
    chmodSync(shared, 0o777);
    const own = freshRoot();
    const { files } = addonFiles();
    let used = "";
    extractToCache("native-2", files, (dir) => (used = dir), [shared, own]);
    expect(used).toBe(join(own, "native-2"));
    expect(existsSync(join(shared, "native-2"))).toBe(false);
  });

  it("moves on to the next root when loading fails there (a noexec mount)", () => {
    const noexec = freshRoot();
    const ok = freshRoot();
    const { files } = addonFiles();
    const result = extractToCache(
      "native-3",
      files,
      (dir) => {
        if (dir.startsWith(noexec)) throw new Error("failed to map segment from shared object");
        return dir;
      },
      [noexec, ok],
    );
    expect(result).toBe(join(ok, "native-3"));
  });

  it("extracts a damaged entry again", () => {
    const root = freshRoot();
    const { files } = addonFiles();
    extractToCache("native-4", files, readMain, [root]);
    rmSync(join(root, "native-4/@img/a/lib/a.node"));
    expect(extractToCache("native-4", files, readMain, [root])).toBe("A");
  });

  it("says which roots it tried when none works", () => {
    const { files } = addonFiles();
    const fail = () => {
      throw new Error("nope");
    };
    expect(() => extractToCache("native-5", files, fail, [freshRoot(), freshRoot()])).toThrow(
      /cannot load native code native-5; tried:[\s\S]*nope[\s\S]*nope/,
    );
  });
});

describe("cacheRoots", () => {
  it("prefers XDG_CACHE_HOME, then ~/.cache, then the temp dir", () => {
    const roots = cacheRoots({ XDG_CACHE_HOME: "/xdg", HOME: "/home/u" });
    expect(roots.slice(0, 2)).toEqual(["/xdg/attic", "/home/u/.cache/attic"]);
    expect(roots[2]).toMatch(new RegExp(`^${tmpdir()}/attic-`));
  });
});
