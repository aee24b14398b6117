import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterAll, describe, expect, it } from "vitest";
import { schemaDdl } from "../../scripts/db-sql.ts";
import { openDb } from "../../src/db/client.ts";
import { MIGRATIONS } from "../../src/db/migrations/index.ts";
import { rowIndexer } from "../../src/db/search-index.ts";

describe("database schema", () => {
  const dir = mkdtempSync(join(tmpdir(), "attic-schema-"));
  const db = openDb({ file: join(dir, "a.db") });
  afterAll(() => {
    db.$client.close();
    rmSync(dir, { recursive: true, force: true });
  });

  /**
   * Everything SQLite records about the structure, per table: columns (type,
   * NOT NULL, default, primary key), foreign keys, and indexes (unique,
   * partial, key columns with collation and order; an expression key is
   * compared through the index's own SQL, whitespace and quoting aside).
   * Full-text tables are custom SQL outside drizzle's model: left out.
   */
  const structure = (c: Database.Database) => {
    // Booleans: drizzle writes DEFAULT false, the migrations DEFAULT 0 (the same value in SQLite).
    const norm = (s: string | null) =>
      ({ false: "0", true: "1" })[s ?? ""] ?? (s ?? "").replace(/[`"\s]/g, "").toLowerCase();
    const names = (
      c.prepare("SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite_%'").all() as {
        name: string;
      }[]
    )
      .map((r) => r.name)
      .filter((n) => !n.startsWith("files_fts"))
      .sort();
    return Object.fromEntries(
      names.map((t) => [
        t,
        {
          columns: (c.pragma(`table_info(${t})`) as Record<string, string | number | null>[])
            .map((col) => {
              const { name, type, notnull, dflt_value, pk } = col;
              return {
                name,
                type: String(type).toUpperCase(),
                notnull,
                dflt: norm(dflt_value as string),
                pk,
              };
            })
            // Columns added by ALTER TABLE come last; queries name columns, so order is not structure.
            .sort((a, b) => String(a.name).localeCompare(String(b.name))),
          foreignKeys: (c.pragma(`foreign_key_list(${t})`) as Record<string, string>[])
            .map((f) => `${f.from}->${f.table}.${f.to} delete:${f.on_delete} update:${f.on_update}`)
            .sort(),
          indexes: (
            c.pragma(`index_list(${t})`) as {
              name: string;
              unique: number;
              partial: number;
              origin: string;
            }[]
          )
            .filter((i) => i.origin !== "pk")
            .map((i) => {
              const keys = (c.pragma(`index_xinfo(${i.name})`) as Record<string, string | number | null>[])
                .filter((k) => k.key === 1)
                .map((k) => `${k.name ?? "expr"} ${k.coll} ${k.desc}`);
              // A column UNIQUE and a unique index on that column are the same index; expressions
              // and WHERE clauses are only in the SQL.
              const custom = i.partial === 1 || keys.some((k) => k.startsWith("expr"));
              return {
                unique: i.unique,
                partial: i.partial,
                keys,
                sql: custom ? norm(sqlOf(c, i.name)) : "",
              };
            })
            .sort((a, b) => (a.keys.join() + a.sql).localeCompare(b.keys.join() + b.sql)),
        },
      ]),
    );
  };
  const sqlOf = (c: Database.Database, index: string) =>
    (c.prepare("SELECT sql FROM sqlite_schema WHERE name = ?").get(index) as { sql: string }).sql
      .replace(/\bON\s+[^\s(]+\s*\(/i, "(")
      .replace(/"files"\./g, "")
      .replace(/^CREATE (UNIQUE )?INDEX\s+\S+\s*/i, "");

  it("has exactly the structure drizzle-kit generates from schema.ts (npm run db:sql)", async () => {
    const generated = new Database(":memory:");
    for (const statement of await schemaDdl()) generated.exec(statement);
    const fromSchema = structure(generated);
    const migrated = structure(db.$client);
    expect(Object.keys(migrated)).toEqual(Object.keys(fromSchema));
    expect(Object.keys(migrated).length).toBeGreaterThan(15);
    for (const table of Object.keys(fromSchema)) expect(migrated[table], table).toEqual(fromSchema[table]);
    generated.close();
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
    const { lastInsertRowid } = c
      .prepare(
        `INSERT INTO files (id, organization_id, name, path, type, mime_type, created_at, updated_at, accessed_at)
         VALUES ('f', 'o', 'Crème Brûlée.txt', '/Crème Brûlée.txt', 'file', 'text/plain', ?, ?, ?)`,
      )
      .run(now, now, now);
    const match = (q: string) =>
      c.prepare("SELECT count(*) n FROM files_fts WHERE files_fts MATCH ?").get(`"${q}"`) as { n: number };
    // No trigger indexes an insert (migration 0023): the code that inserts a row indexes it.
    expect(match("creme brulee").n).toBe(0);
    rowIndexer(c)([lastInsertRowid]);
    expect(match("creme brulee").n).toBe(1);
    c.prepare("UPDATE files SET name = 'Tarte.txt', path = '/Tarte.txt' WHERE id = 'f'").run();
    expect(match("creme").n).toBe(0);
    expect(match("TARTE").n).toBe(1);
    c.prepare("DELETE FROM files WHERE id = 'f'").run();
    expect(match("tarte").n).toBe(0);
    expect(() => c.exec("INSERT INTO files_fts(files_fts) VALUES ('integrity-check')")).not.toThrow();
  });
});
