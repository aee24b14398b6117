/**
 * What a first scan's writes cost per row, on today's `files` row and on a
 * candidate lean row, over the same walk in the same run (issue 14):
 * `node scripts/bench/scan-row.ts [--tree DIR] [--rows N]` (default the
 * index bench's 200k tree, every entry).
 *
 * A design measurement, not a product path: it takes the SQLite side of a
 * first scan alone (no walk, no stat, no thread, one transaction per 20,000
 * rows), so that the two rows differ in nothing but their shape.
 * - today: the schema of every migration (src/db/migrations), rows written
 *   by the scan's own statements (src/domain/watched/scan-writes.ts: the
 *   insert, its parent's path and access root, the search index in bulk),
 *   with the scan thread's 4 MiB page cache.
 * - lean: integer keys (the row's number, its parent's, its
 *   organization's), no path or host path stored, one index kept row by row
 *   (the children's unique names), the names in a contentless trigram FTS5
 *   index, and the name order built once after the last row.
 *
 * Prints µs per row for each. The lean row holds less than the product
 * needs (dates as integers, no mime type, no owner), so it is a floor, not
 * a promise; docs/performance.md ("Indexing a watched folder") has the
 * figures and what they decide.
 */
import { mkdirSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import Database from "better-sqlite3";
import { openDb } from "../../src/db/client.ts";
import { CONNECTION_PRAGMAS } from "../../src/db/worker-db.ts";
import { scanWrites } from "../../src/domain/watched/scan-writes.ts";
import { newId } from "../../src/platform/ids.ts";
import { WORK } from "./lib/attic.ts";
import { say } from "./lib/report.ts";

const { values: args } = parseArgs({
  options: {
    tree: { type: "string", default: join(WORK, "tree") },
    rows: { type: "string", default: String(Number.MAX_SAFE_INTEGER) },
  },
});
const TREE = resolve(args.tree);
const LIMIT = Number(args.rows);
/** Rows per transaction. */
const BATCH = 20_000;
/** The scan writer thread's page cache (watched.repo.ts SCAN_THREAD_CACHE_KIB). */
const CACHE_KIB = 4096;

interface Entry {
  /** Index of its directory in `entries`, -1 at the top. */
  parent: number;
  name: string;
  dir: boolean;
  rel: string;
}

function walk(): Entry[] {
  const entries: Entry[] = [];
  const dirs: { abs: string; rel: string; at: number }[] = [{ abs: TREE, rel: "", at: -1 }];
  for (let d = dirs.pop(); d && entries.length < LIMIT; d = dirs.pop()) {
    for (const e of readdirSync(d.abs, { withFileTypes: true })) {
      if (entries.length >= LIMIT) break;
      const rel = d.rel ? `${d.rel}/${e.name}` : e.name;
      entries.push({ parent: d.at, name: e.name, dir: e.isDirectory(), rel });
      if (e.isDirectory()) dirs.push({ abs: join(d.abs, e.name), rel, at: entries.length - 1 });
    }
  }
  return entries;
}

function scratchDir(): string {
  mkdirSync(WORK, { recursive: true });
  return mkdtempSync(join(WORK, "scan-row-"));
}

/** Today's row, through the scan's statements: µs per row. */
function today(entries: Entry[]): number {
  const dir = scratchDir();
  try {
    const db = openDb({ file: join(dir, "attic.db") });
    const c = db.$client;
    c.pragma(`cache_size = ${-CACHE_KIB}`);
    const now = new Date().toISOString();
    const [org, folder, mount] = [newId(), newId(), newId()];
    c.prepare("insert into organizations (id, name, created_at, updated_at) values (?, 'bench', ?, ?)").run(
      org,
      now,
      now,
    );
    c.prepare(
      "insert into watched_folders (id, organization_id, name, path, created_at, updated_at) values (?, ?, 'Tree', ?, ?, ?)",
    ).run(folder, org, TREE, now, now);
    const writes = scanWrites(c);
    const base = {
      organization_id: org,
      owner_id: null,
      size: 0,
      watched_folder_id: folder,
      host_mtime_ms: 1,
      now,
      updated_at: now,
      acl_id: null,
    };
    const mountRow = { parent_id: null, name: "Tree", path: "/Tree", host_rel_path: "" };
    writes.insertEntry({ ...base, ...mountRow, id: mount, type: "directory", mime_type: "inode/directory" });
    const ids: string[] = new Array(entries.length);
    const started = performance.now();
    for (let at = 0; at < entries.length; at += BATCH) {
      writes.begin();
      for (let i = at; i < Math.min(entries.length, at + BATCH); i++) {
        const e = entries[i]!;
        const id = newId();
        ids[i] = id;
        writes.insertEntry({
          ...base,
          id,
          parent_id: e.parent < 0 ? mount : ids[e.parent]!,
          name: e.name,
          // Replaced by the parent's path and the name (scan-writes.ts insertEntry).
          path: "",
          type: e.dir ? "directory" : "file",
          mime_type: e.dir ? "inode/directory" : "application/octet-stream",
          host_rel_path: e.rel,
        });
      }
      writes.commit();
    }
    const us = ((performance.now() - started) * 1000) / entries.length;
    c.close();
    return us;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The lean row: µs per row of the inserts, and seconds of the name order built after them. */
function lean(entries: Entry[]): { us: number; nameIndexS: number } {
  const dir = scratchDir();
  try {
    const c = new Database(join(dir, "lean.db"));
    c.pragma("journal_mode = WAL");
    for (const p of CONNECTION_PRAGMAS) c.pragma(p);
    c.pragma(`cache_size = ${-CACHE_KIB}`);
    c.exec(`
      CREATE TABLE nodes (n INTEGER PRIMARY KEY, org INTEGER NOT NULL, parent INTEGER REFERENCES nodes(n) ON DELETE CASCADE,
        name TEXT NOT NULL, kind INTEGER NOT NULL, size INTEGER NOT NULL, mtime INTEGER, created INTEGER NOT NULL,
        acl INTEGER, deleted INTEGER NOT NULL DEFAULT 0);
      CREATE UNIQUE INDEX nodes_children ON nodes(parent, name) WHERE deleted = 0;
      CREATE VIRTUAL TABLE nodes_fts USING fts5(name, content = '', contentless_delete = 1,
        tokenize = 'trigram remove_diacritics 1 case_sensitive 0');`);
    const insert = c.prepare(
      "INSERT INTO nodes (n, org, parent, name, kind, size, mtime, created) VALUES (?, 1, ?, ?, ?, 0, 1, 1)",
    );
    const index = c.prepare("INSERT INTO nodes_fts (rowid, name) VALUES (?, ?)");
    const begin = c.prepare("BEGIN");
    const commit = c.prepare("COMMIT");
    insert.run(1, null, "Tree", 1);
    const started = performance.now();
    for (let at = 0; at < entries.length; at += BATCH) {
      begin.run();
      for (let i = at; i < Math.min(entries.length, at + BATCH); i++) {
        const e = entries[i]!;
        insert.run(i + 2, e.parent < 0 ? 1 : e.parent + 2, e.name, e.dir ? 1 : 0);
        index.run(i + 2, `${e.name}  `);
      }
      commit.run();
    }
    const us = ((performance.now() - started) * 1000) / entries.length;
    const indexing = performance.now();
    c.exec("CREATE INDEX nodes_name ON nodes(org, deleted, name COLLATE NOCASE, parent)");
    const nameIndexS = (performance.now() - indexing) / 1000;
    c.close();
    return { us, nameIndexS };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const entries = walk();
say(`scan-row: ${entries.length} entries of ${TREE}`);
const t = today(entries);
say(`  today's row: ${t.toFixed(1)} µs/row, ${((t * entries.length) / 1e6).toFixed(1)} s`);
const l = lean(entries);
say(
  `  lean row:    ${l.us.toFixed(1)} µs/row, ${((l.us * entries.length) / 1e6).toFixed(1)} s, then the name order in ${l.nameIndexS.toFixed(1)} s`,
);
say(`  ratio today / lean (inserts): ${(t / l.us).toFixed(2)}`);
