import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
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
