import { afterAll, describe, expect, it } from "vitest";
import { createFilesRepo } from "../../src/domain/files/files.repo.ts";
import { newId } from "../../src/platform/ids.ts";
import { closeTempDb, openTempDb } from "../helpers/temp-db.ts";

/**
 * Query plans the tree's deletes and lookups depend on at a million rows
 * (docs/performance.md): a full index scan per row there cost seconds to
 * hours, and with a handful of rows in a test it would go unnoticed, so the
 * plans themselves are checked.
 */
describe("plans of deletes and id lookups", () => {
  const { dir, db } = openTempDb("attic-plans-", [newId()]);
  afterAll(() => closeTempDb(dir, db));
  const plan = (sql: string, params: unknown[]) =>
    (db.$client.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(...params) as { detail: string }[]).map(
      (r) => r.detail,
    );

  it("finds a row's children by parent alone through an index (the parent_id cascade of every delete)", () => {
    // What SQLite runs for ON DELETE CASCADE on files.parent_id.
    const steps = plan("SELECT 1 FROM files WHERE parent_id = ?", [newId()]);
    expect(steps.join(" | ")).toMatch(/SEARCH files USING (COVERING )?INDEX files_parent_idx/);
  });

  it("looks up a list of ids by primary key, not by walking the organization", () => {
    const ids = Array.from({ length: 500 }, () => newId());
    const seen: string[] = [];
    const prepare = db.$client.prepare.bind(db.$client);
    db.$client.prepare = ((sql: string) => {
      seen.push(sql);
      return prepare(sql);
    }) as typeof db.$client.prepare;
    try {
      // A page's worth (the repository asks 500 at a time): with two, SQLite looks them up anyway.
      createFilesRepo(db).rowsByIds(newId(), ids);
    } finally {
      db.$client.prepare = prepare;
    }
    const sql = seen.findLast((s) => / in \(/i.test(s))!;
    const steps = plan(sql, [newId(), ...ids]);
    expect(steps.join(" | ")).toMatch(/SEARCH files USING INDEX sqlite_autoindex_files_1 \(id=\?\)/);
  });
});
