import { mkdirSync, mkdtempSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { watchDirs } from "../../src/platform/watcher.ts";

describe("watchDirs", () => {
  const roots: string[] = [];
  afterEach(() => {
    for (const r of roots.splice(0)) rmSync(r, { recursive: true, force: true });
  });

  it("treats a directory gone since it was indexed as a change, not a failure of the whole watch", async () => {
    const root = mkdtempSync(join(tmpdir(), "attic-watch-"));
    roots.push(root);
    const changed: string[] = [];
    const errors: unknown[] = [];
    const w = watchDirs(root, {
      debounceMs: 10,
      onChanges: (dirs) => changed.push(...dirs),
      onError: (err) => errors.push(err),
    });
    expect(() => w.add("vanished")).not.toThrow();
    await new Promise((r) => setTimeout(r, 100));
    expect(changed).toEqual(["vanished"]);
    expect(errors).toEqual([]);
    w.close();
  });

  it("watches the directory now at a name after the one watched there was moved away or deleted", async () => {
    const root = mkdtempSync(join(tmpdir(), "attic-watch-"));
    roots.push(root);
    mkdirSync(join(root, "d"));
    mkdirSync(join(root, "e"));
    const changed = new Set<string>();
    const w = watchDirs(root, {
      debounceMs: 10,
      onChanges: (dirs) => {
        for (const d of dirs) changed.add(d);
      },
      onError: () => {},
    });
    w.add("d");
    w.add("e");
    /** Waits (bounded) until `rel` is reported, then forgets the reports. */
    const reported = async (rel: string) => {
      for (let i = 0; i < 100 && !changed.has(rel); i++) await new Promise((r) => setTimeout(r, 20));
      const seen = changed.has(rel);
      changed.clear();
      return seen;
    };
    renameSync(join(root, "d"), join(root, "d.old"));
    mkdirSync(join(root, "d"));
    expect(await reported("d")).toBe(true);
    writeFileSync(join(root, "d", "new.txt"), "n");
    expect(await reported("d")).toBe(true);
    rmSync(join(root, "e"), { recursive: true });
    expect(await reported("e")).toBe(true);
    mkdirSync(join(root, "e"));
    w.add("e");
    writeFileSync(join(root, "e", "new.txt"), "n");
    expect(await reported("e")).toBe(true);
    w.close();
  });

  it.skipIf(process.getuid?.() === 0)("skips an unreadable directory and keeps the rest live", async () => {
    // As root every directory is readable: this case runs only for ordinary users.
    const root = mkdtempSync(join(tmpdir(), "attic-watch-"));
    roots.push(root);
    mkdirSync(join(root, "locked"), { mode: 0o000 });
    const skipped: string[] = [];
    const w = watchDirs(root, {
      debounceMs: 10,
      onChanges: () => {},
      onError: () => {},
      onSkip: (rel) => skipped.push(rel),
    });
    expect(() => w.add("locked")).not.toThrow();
    expect(skipped).toEqual(["locked"]);
    w.close();
  });
});
