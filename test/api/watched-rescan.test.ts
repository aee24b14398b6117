import { mkdtempSync, rmSync, statSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { startServer } from "../helpers/server.ts";
import { folders, hostTree, waitFor } from "./watched.helpers.ts";

describe("periodic full rescans (watch.full_rescan_interval)", () => {
  const cleanup: string[] = [];
  afterAll(() => {
    for (const d of cleanup) rmSync(d, { recursive: true, force: true });
  });

  it("pick up an in-place edit that a quick rescan cannot see", async () => {
    const root = hostTree({ "music/song.mp3": "ID3 version one" });
    const dataDir = mkdtempSync(join(tmpdir(), "attic-rescan-"));
    cleanup.push(root, dataDir);
    const overrides = { watch: { full_rescan_interval: "1s", debounce: 0.1 } };
    let s = await startServer(overrides, { keepDataDir: dataDir });
    let token = await s.login();
    const created = await folders(s, token).create({ name: "Music", path: root });
    expect(created.status).toBe(201);
    await folders(s, token).settled(created.body.id);
    const sizeOf = async () => {
      const r = await s.api("GET", "/api/v1/search?q=song", { token });
      return r.body.files[0]?.size as number | undefined;
    };
    expect(await sizeOf()).toBe(15);
    await s.close();
    // While Attic is stopped, a tag editor rewrites the file in place; the directory's mtime
    // does not change, so the quick scan at the next start skips it.
    const dir = join(root, "music");
    const before = statSync(dir);
    writeFileSync(join(dir, "song.mp3"), "ID3 version two, longer");
    utimesSync(dir, before.atime, before.mtime);
    s = await startServer(overrides, { keepDataDir: dataDir });
    token = await s.login();
    expect(await waitFor(sizeOf, (size) => size === 23)).toBe(23);
    await s.close();
  });

  it("never pile up behind a running scan: scans asked for meanwhile are one", async () => {
    const files: Record<string, string> = {};
    for (let d = 0; d < 20; d++) for (let i = 0; i < 100; i++) files[`d${d}/f${i}.txt`] = "x";
    const root = hostTree(files);
    cleanup.push(root);
    const scans: { full: boolean }[] = [];
    const s = await startServer(
      { watch: { debounce: 0.1 }, log: { level: "info" } },
      {
        logTo: (line) => {
          const entry = JSON.parse(line) as { msg?: string; full?: boolean };
          if (entry.msg === "watched folder scanned") scans.push({ full: entry.full === true });
        },
      },
    );
    try {
      const token = await s.login();
      const f = folders(s, token);
      const { body } = await f.create({ name: "Busy", path: root });
      await f.settled(body.id);
      // A double-clicking admin, or timers firing while a slow scan runs: 30 quick scans at once, then a full one.
      const asked = await Promise.all(
        Array.from({ length: 30 }, () => s.api("POST", `/api/v1/watched-folders/${body.id}/scan`, { token })),
      );
      expect(asked.every((r) => r.status === 202)).toBe(true);
      const full = await s.api("POST", `/api/v1/watched-folders/${body.id}/scan?full=true`, { token });
      expect(full.status).toBe(202);
      // Scans of a folder run in order: once a full one has run, every scan asked for before it has.
      await waitFor(
        async () => scans.filter((x) => x.full).length,
        (n) => n > 0,
      );
      // The first scan, the one running when the asks came, and one for all of them.
      expect(scans.length).toBeLessThanOrEqual(3);
    } finally {
      await s.close();
    }
  });
});
