import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { movesWatch } from "../../src/db/change-watch.ts";
import { type Db, openDb } from "../../src/db/client.ts";
import { rowIndexer } from "../../src/db/search-index.ts";
import { mergeIndex } from "../../src/domain/watched/index-merge.ts";
import { createWatchedRepo } from "../../src/domain/watched/watched.repo.ts";
import { newId, nowIso } from "../../src/platform/ids.ts";
import { insertOrganization } from "../helpers/tree-seed.ts";

/**
 * The search index's merge after big scans (index-merge.ts) on a real
 * database: an index written by many small transactions, as a scan writes
 * it, ends in fewer segments, answers every query as before, and passes
 * FTS5's own integrity check.
 */
describe("merging the search index", () => {
  let dir: string;
  let db: Db;
  const org = newId();
  const segments = () =>
    (db.$client.prepare("SELECT count(DISTINCT segid) AS n FROM files_fts_idx").get() as { n: number }).n;
  const matches = (expr: string) =>
    (
      db.$client.prepare("SELECT rowid FROM files_fts WHERE files_fts MATCH ? ORDER BY rowid").all(expr) as {
        rowid: number;
      }[]
    ).map((r) => r.rowid);

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), "attic-merge-"));
    db = openDb({ file: join(dir, "attic.db") });
    const c = db.$client;
    const now = nowIso();
    insertOrganization(c, org);
    const insert = c.prepare(
      `INSERT INTO files (id, organization_id, name, path, type, mime_type, created_at, updated_at, accessed_at)
       VALUES (?, ?, ?, ?, 'file', 'image/jpeg', ?, ?, ?)`,
    );
    const index = rowIndexer(c);
    const words = ["Holiday", "Zoë", "東京 夜景", "Budapest", "invoice", "S01E03"];
    // One transaction per 20 rows: one index segment each, as a scan's transactions write them.
    for (let t = 0; t < 150; t++) {
      c.transaction(() => {
        for (let i = 0; i < 20; i++) {
          const name = `${words[(t + i) % words.length]} ${t}-${i}.jpg`;
          index([insert.run(newId(), org, name, `/${name}`, now, now, now).lastInsertRowid]);
        }
      })();
    }
  });
  afterAll(() => {
    db.$client.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("merges the segments in slices, changing no answer and no directory total", async () => {
    const queries = ['"holiday"', '"zoe"', '"東京 夜景"', '"s01e03"', '"budapest" OR "invoice"', '"zz"'];
    const before = queries.map(matches);
    const segmentsBefore = segments();
    expect(segmentsBefore).toBeGreaterThan(3);
    const moves = movesWatch(db.$client);
    moves.changed();
    const repo = createWatchedRepo(db);
    const slices = await mergeIndex({ mergeSome: repo.mergeIndex }, { signal: new AbortController().signal });
    expect(slices).toBeGreaterThan(1);
    expect(segments()).toBeLessThan(segmentsBefore);
    expect(segments()).toBe(1);
    expect(queries.map(matches)).toEqual(before);
    expect(before.slice(0, 4).every((m) => m.length > 100)).toBe(true);
    // No row of the tree moved: listings keep their totals and positions.
    expect(moves.changed()).toBe(false);
    db.$client.exec("INSERT INTO files_fts(files_fts) VALUES ('integrity-check')");
    // Nothing left: one slice finds no work.
    expect(await mergeIndex({ mergeSome: repo.mergeIndex }, { signal: new AbortController().signal })).toBe(
      1,
    );
  });

  it("waits for quiet before each slice, and stops when aborted while waiting", async () => {
    const repo = createWatchedRepo(db);
    let looks = 0;
    let merged = 0;
    const slices = await mergeIndex(
      {
        mergeSome: (pages, start) => {
          merged++;
          return repo.mergeIndex(pages, start);
        },
      },
      // Busy for the first three looks: no slice runs before the fourth.
      { signal: new AbortController().signal, idle: () => ++looks > 3 },
    );
    expect(looks).toBeGreaterThan(3);
    expect(slices).toBe(merged);
    const stop = new AbortController();
    setTimeout(() => stop.abort(), 300);
    const waited = await mergeIndex(
      {
        mergeSome: () => {
          throw new Error("a slice ran while the server was busy");
        },
      },
      { signal: stop.signal, idle: () => false },
    );
    expect(waited).toBe(0);
  });

  it("stops when aborted", async () => {
    const stop = new AbortController();
    stop.abort();
    let calls = 0;
    const repo = createWatchedRepo(db);
    const slices = await mergeIndex(
      {
        mergeSome: (pages, start) => {
          calls++;
          return repo.mergeIndex(pages, start);
        },
      },
      { signal: stop.signal },
    );
    expect(slices).toBe(0);
    expect(calls).toBe(0);
  });
});
