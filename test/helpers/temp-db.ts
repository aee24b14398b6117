import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type Db, openDb } from "../../src/db/client.ts";
import { organizations } from "../../src/db/schema.ts";
import { nowIso } from "../../src/platform/ids.ts";

/** A fresh database file (every migration applied) in a temp dir, holding organizations `orgIds`. */
export function openTempDb(prefix: string, orgIds: readonly string[]): { dir: string; db: Db } {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  const db = openDb({ file: join(dir, "t.db") });
  const now = nowIso();
  db.insert(organizations)
    .values(orgIds.map((id) => ({ id, name: id, created_at: now, updated_at: now })))
    .run();
  return { dir, db };
}

/** Closes `db` and removes its temp dir (openTempDb). */
export function closeTempDb(dir: string, db: Db): void {
  db.$client.close();
  rmSync(dir, { recursive: true, force: true });
}
