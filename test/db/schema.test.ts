import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { getTableConfig, type SQLiteTable } from "drizzle-orm/sqlite-core";
import { afterAll, describe, expect, it } from "vitest";
import { openDb } from "../../src/db/client.ts";
import { MIGRATIONS } from "../../src/db/migrations/index.ts";
import * as schema from "../../src/db/schema.ts";

describe("database schema", () => {
  const dir = mkdtempSync(join(tmpdir(), "attic-schema-"));
  const db = openDb({ file: join(dir, "a.db") });
  afterAll(() => {
    db.$client.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const tables = (Object.values(schema) as unknown[]).filter(
    (v): v is SQLiteTable => typeof v === "object" && v !== null && Symbol.for("drizzle:IsDrizzleTable") in v,
  );

  it("has, for every drizzle table, the same columns in the migrated database", () => {
    expect(tables.length).toBeGreaterThan(10);
    for (const table of tables) {
      const cfg = getTableConfig(table);
      const actual = (
        db.$client.pragma(`table_info(${cfg.name})`) as { name: string; notnull: number }[]
      ).map((c) => `${c.name}:${c.notnull}`);
      const expected = cfg.columns.map((c) => `${c.name}:${c.notNull || c.primary ? 1 : 0}`);
      expect(actual.sort(), cfg.name).toEqual(expected.sort());
    }
  });

  it("runs with WAL, foreign keys and a busy timeout, at the latest migration", () => {
    expect(db.$client.pragma("journal_mode", { simple: true })).toBe("wal");
    expect(db.$client.pragma("foreign_keys", { simple: true })).toBe(1);
    expect(db.$client.pragma("busy_timeout", { simple: true })).toBe(5000);
    expect(db.$client.pragma("user_version", { simple: true })).toBe(MIGRATIONS.at(-1)!.id);
  });

  it("keeps the trigram index in step with file names, accent- and case-insensitively", () => {
    const c = db.$client;
    const now = new Date().toISOString();
    c.prepare("INSERT INTO organizations VALUES ('o', 'O', ?, ?)").run(now, now);
    c.prepare(
      `INSERT INTO files (id, organization_id, name, path, type, mime_type, created_at, updated_at, accessed_at)
       VALUES ('f', 'o', 'Crème Brûlée.txt', '/Crème Brûlée.txt', 'file', 'text/plain', ?, ?, ?)`,
    ).run(now, now, now);
    const match = (q: string) =>
      c.prepare("SELECT count(*) n FROM files_fts WHERE files_fts MATCH ?").get(`"${q}"`) as { n: number };
    expect(match("creme brulee").n).toBe(1);
    c.prepare("UPDATE files SET name = 'Tarte.txt', path = '/Tarte.txt' WHERE id = 'f'").run();
    expect(match("creme").n).toBe(0);
    expect(match("TARTE").n).toBe(1);
    c.prepare("DELETE FROM files WHERE id = 'f'").run();
    expect(match("tarte").n).toBe(0);
  });
});
