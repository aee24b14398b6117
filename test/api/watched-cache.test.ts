import { mkdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CACHE_KIB } from "../../src/db/client.ts";
import { startServer, type TestServer } from "../helpers/server.ts";
import { folders, hostTree, waitFor } from "./watched.helpers.ts";

/** The connection's page cache outside bulk work (db/client.ts), and the bulk work's (watched.repo.ts). */
const NORMAL_CACHE = -CACHE_KIB;
const SMALL_CACHE = -16_384;

/**
 * A first scan keeps SQLite's small page cache until the folder is live:
 * listing the directories to watch and the pass after the watches start read
 * rows all over the table, and with the normal cache back they filled it
 * just as the watches added their own memory (the peak RSS of a 1M-file
 * scan). Observed on the server's own connection, polled between its turns
 * (watches are added 500 directories per turn).
 */
describe("page cache of a scan going live", () => {
  let s: TestServer;
  let root: string;

  beforeAll(async () => {
    s = await startServer({ watch: { debounce: 0.2, hash_concurrency: 0 } });
    root = hostTree({ "top.txt": "x" });
    for (let i = 0; i < 1500; i++)
      mkdirSync(join(root, `d${Math.floor(i / 50)}`, `e${i}`), { recursive: true });
  });
  afterAll(async () => {
    await s.close();
    rmSync(root, { recursive: true, force: true });
  });

  it("stays small from the scan until the watches are up, then is given back", async () => {
    const token = await s.login();
    const f = folders(s, token);
    const c = s.server.ctx.db.$client;
    const row = c.prepare<[string], { status: string; last_scan_finished_at: string | null }>(
      "SELECT status, last_scan_finished_at FROM watched_folders WHERE id = ?",
    );
    const created = await f.create({ name: "Many", path: root });
    expect(created.status).toBe(201);
    const id = created.body.id as string;

    // Every turn between the scan's count and the status turning to watching.
    const goingLive: number[] = [];
    for (const deadline = Date.now() + 30_000; Date.now() < deadline; ) {
      const r = row.get(id);
      if (r?.status === "watching") break;
      if (r?.last_scan_finished_at) goingLive.push(c.pragma("cache_size", { simple: true }) as number);
      await new Promise((ok) => setImmediate(ok));
    }
    expect(row.get(id)?.status).toBe("watching");
    expect(goingLive.length).toBeGreaterThan(0);
    expect(new Set(goingLive)).toEqual(new Set([SMALL_CACHE]));
    // Given back once the pass after the watches ends (no hashing here to take it over).
    const cache = () => Promise.resolve(c.pragma("cache_size", { simple: true }) as number);
    expect(await waitFor(cache, (n) => n === NORMAL_CACHE, 10_000)).toBe(NORMAL_CACHE);
    expect((await f.get(id)).files_indexed).toBe(1);
  });
});
