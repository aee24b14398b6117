import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { withoutMoves } from "../../src/db/change-watch.ts";
import { openDb } from "../../src/db/client.ts";
import { rowIndexer } from "../../src/db/search-index.ts";
import type { AccessView } from "../../src/domain/access/access.ts";
import { createFilesRepo } from "../../src/domain/files/files.repo.ts";
import { newId, nowIso } from "../../src/platform/ids.ts";
import { insertOrganization } from "../helpers/tree-seed.ts";

/**
 * Deep pages of a directory are found from remembered positions
 * (listing.ts) instead of walking every entry before them. Here positions
 * are every 3 rows, and every page of every size, for several viewers and
 * for directory-only listings, is compared with the plain walk (a repo whose
 * positions are never reached), on a real database, before and after the
 * directory changes.
 */
describe("directory pages from remembered positions", () => {
  const dir = mkdtempSync(join(tmpdir(), "attic-listing-"));
  const db = openDb({ file: join(dir, "attic.db") });
  const c = db.$client;
  afterAll(() => {
    c.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const org = newId();
  const now = nowIso();
  insertOrganization(c, org);
  const insert = c.prepare(
    `INSERT INTO files (id, organization_id, parent_id, name, path, type, mime_type, acl_id, created_at, updated_at, accessed_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  const index = rowIndexer(c);
  const add = (
    parent: string | null,
    name: string,
    type: "file" | "directory",
    acl: string | null = null,
  ) => {
    const id = newId();
    const mime = type === "directory" ? "inode/directory" : "text/plain";
    index([insert.run(id, org, parent, name, `/${name}`, type, mime, acl, now, now, now).lastInsertRowid]);
    return id;
  };

  const box = add(null, "Box", "directory");
  const secret = add(null, "Secret", "directory", null);
  // Case variants (equal folded, ordered exactly), accents, digits, directories and files, and
  // rows under an access list of their own that only some viewers read.
  const names = ["b", "B", "a", "A", "é", "E", "e", "z10", "z9", "Zed", "ß", "ss", "m", "M", "_x", "0", "~"];
  for (const [i, n] of names.entries()) {
    add(box, `${n}.txt`, "file", i % 5 === 0 ? secret : null);
    if (i % 3 === 0) add(box, n, "directory", i % 2 === 0 ? secret : null);
  }

  const views: [string, AccessView][] = [
    ["reads all", { top: 1, atLeast: { 1: JSON.stringify([secret]) } } as unknown as AccessView],
    ["reads the top only", { top: 1, atLeast: { 1: "[]" } } as unknown as AccessView],
    ["reads the secret only", { top: 0, atLeast: { 1: JSON.stringify([secret]) } } as unknown as AccessView],
  ];
  const deep = createFilesRepo(db, { positionStep: 3 });
  const plain = createFilesRepo(db, { positionStep: 1_000_000 });
  const names_ = (rows: { name: string }[]) => rows.map((r) => r.name);

  const compareAll = () => {
    // Forget the positions kept so far (any write does): each pass finds them afresh.
    c.prepare("UPDATE organizations SET updated_at = updated_at WHERE id = ?").run(org);
    let pages = 0;
    for (const [label, view] of views) {
      for (const onlyDirs of [false, true]) {
        const all = plain.children(org, view, box, { limit: 1000, offset: 0 }, onlyDirs);
        for (let limit = 1; limit <= 7; limit++) {
          // Odd sizes from the end backwards: a position is then found from one far below it, not the next.
          const offsets = Array.from({ length: all.total + 3 }, (_, i) =>
            limit % 2 ? all.total + 2 - i : i,
          );
          for (const offset of offsets) {
            const want = plain.children(org, view, box, { limit, offset }, onlyDirs);
            const got = deep.children(org, view, box, { limit, offset }, onlyDirs);
            expect(
              { rows: names_(got.rows), total: got.total },
              `${label}, dirs only ${onlyDirs}, ${limit} at ${offset}`,
            ).toEqual({
              rows: names_(want.rows),
              total: want.total,
            });
            expect(names_(want.rows)).toEqual(names_(all.rows.slice(offset, offset + limit)));
            pages++;
          }
        }
      }
    }
    return pages;
  };

  it("gives every page as walking the directory does", () => {
    expect(compareAll()).toBeGreaterThan(500);
    const all = plain.children(org, views[0]![1], box, { limit: 1000, offset: 0 });
    // Directories first, then by folded name, then exactly.
    expect(names_(all.rows).slice(0, 6)).toEqual(["0", "A", "b", "e", "m", "Zed"]);
    expect(names_(all.rows).indexOf("A.txt")).toBe(names_(all.rows).indexOf("a.txt") - 1);
    // The top level takes the same path (its own statements): past its end, an empty page and the total.
    for (const offset of [1, 4, 1001])
      expect(deep.children(org, views[0]![1], null, { limit: 5, offset })).toEqual(
        plain.children(org, views[0]![1], null, { limit: 5, offset }),
      );
  });

  it("follows adds, renames, deletes and access changes, and keeps positions through hashing", () => {
    const first = plain.children(org, views[0]![1], box, { limit: 1, offset: 0 }).rows[0]!;
    add(box, "aa.txt", "file");
    add(box, "AAA", "directory");
    compareAll();
    c.prepare("UPDATE files SET name = 'zzz.txt' WHERE parent_id = ? AND name = 'b.txt'").run(box);
    compareAll();
    c.prepare("UPDATE files SET is_deleted = 1, deleted_at = ? WHERE parent_id = ? AND name = 'M.txt'").run(
      now,
      box,
    );
    compareAll();
    c.prepare("UPDATE files SET acl_id = ? WHERE parent_id = ? AND name IN ('e.txt', 'm')").run(secret, box);
    compareAll();
    // A hash written the hasher's way keeps the positions; the rows read after show it.
    withoutMoves(c, () => c.prepare("UPDATE files SET hash = 'h' WHERE id = ?").run(first.id));
    compareAll();
    expect(deep.children(org, views[0]![1], box, { limit: 1, offset: 0 }).rows[0]!.hash).toBe("h");
  });
});
