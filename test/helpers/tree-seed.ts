/**
 * Seeds organizations, users and tree rows straight into the database, for
 * the search and tags tests: they need sizes of megabytes and creation dates
 * in the past, which uploads cannot give cheaply. Rows go into the same
 * `files` table, and reach the search index the same way (one statement
 * after the insert, db/search-index.ts), as the files service writes them;
 * test/api/search-index.test.ts covers the index through the files API
 * itself.
 */
import type Database from "better-sqlite3";
import { eq } from "drizzle-orm";
import type { Db } from "../../src/db/client.ts";
import { files, organizations, roles, userRoles, users } from "../../src/db/schema.ts";
import { rowIndexer } from "../../src/db/search-index.ts";
import { newId, nowIso } from "../../src/platform/ids.ts";
import { createPasswordHasher } from "../../src/platform/passwords.ts";
import type { TestServer } from "./server.ts";

/** An organization row `id` (named "O"), straight into a connection: the domain tests' first row. */
export function insertOrganization(c: Database.Database, id: string): void {
  const now = nowIso();
  c.prepare("INSERT INTO organizations (id, name, created_at, updated_at) VALUES (?, 'O', ?, ?)").run(
    id,
    now,
    now,
  );
}

/** The organization id in an access token. */
export function orgOfToken(token: string): string {
  const payload = JSON.parse(Buffer.from(token.split(".")[1]!, "base64url").toString("utf8"));
  return payload.organization_id as string;
}

/** A new organization with one user holding `permissions`; returns its access token and org id. */
export async function seedOrgUser(
  s: TestServer,
  username: string,
  permissions: string[] = ["*:*"],
  organizationId?: string,
): Promise<{ token: string; orgId: string }> {
  const db = s.server.ctx.db;
  const now = nowIso();
  const orgId = organizationId ?? newId();
  const password = "correct-Horse-battery-9";
  const hash = await createPasswordHasher({ memoryKib: 1024, iterations: 1 }).hash(password);
  const userId = newId();
  const roleId = newId();
  db.transaction((tx) => {
    if (!organizationId) {
      tx.insert(organizations)
        .values({ id: orgId, name: `org-${username}`, created_at: now, updated_at: now })
        .run();
    }
    tx.insert(roles)
      .values({
        id: roleId,
        organization_id: orgId,
        name: `role-${username}`,
        permissions,
        created_at: now,
        updated_at: now,
      })
      .run();
    tx.insert(users)
      .values({
        id: userId,
        organization_id: orgId,
        username,
        email: `${username}@example.com`,
        password_hash: hash,
        created_at: now,
        updated_at: now,
      })
      .run();
    tx.insert(userRoles).values({ user_id: userId, role_id: roleId, created_at: now }).run();
  });
  return { token: await s.login(username, password), orgId };
}

export interface SeedEntry {
  path: string;
  type?: "file" | "directory";
  size?: number;
  created_at?: string;
}

/**
 * Inserts files (and any missing parent directories) of `entries` into the
 * organization's tree; returns path → id of every row it touched.
 */
export function seedTree(db: Db, orgId: string, entries: (string | SeedEntry)[]): Map<string, string> {
  const ids = new Map<string, string>();
  for (const row of db
    .select({ id: files.id, path: files.path })
    .from(files)
    .where(eq(files.organization_id, orgId))
    .all()) {
    ids.set(row.path, row.id);
  }
  // One prepared statement (drizzle builds and prepares each insert anew: ~0.4 ms a row, which held
  // the event loop the test server shares for seconds at a few thousand rows).
  const statement = db.$client.prepare(
    "INSERT INTO files (id, organization_id, parent_id, name, path, type, size, mime_type, created_at, updated_at, accessed_at) " +
      "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
  );
  const index = rowIndexer(db.$client);
  const insert = (e: SeedEntry, parentId: string | undefined) => {
    const now = e.created_at ?? nowIso();
    const id = newId();
    const type = e.type ?? "file";
    const directory = type === "directory";
    const name = e.path.slice(e.path.lastIndexOf("/") + 1);
    const mime = directory ? "inode/directory" : "application/octet-stream";
    const { lastInsertRowid } = statement.run(
      id,
      orgId,
      parentId ?? null,
      name,
      e.path,
      type,
      directory ? 0 : (e.size ?? 0),
      mime,
      now,
      now,
      now,
    );
    index([lastInsertRowid]);
    ids.set(e.path, id);
  };
  for (const raw of entries) {
    const e = typeof raw === "string" ? { path: raw } : raw;
    const parts = e.path.split("/").filter(Boolean);
    let parentId: string | undefined;
    for (let i = 1; i < parts.length; i++) {
      const dir = `/${parts.slice(0, i).join("/")}`;
      if (!ids.has(dir)) insert({ path: dir, type: "directory" }, parentId);
      parentId = ids.get(dir);
    }
    insert(e, parentId);
  }
  return ids;
}

/**
 * Marks rows `from` to `to` (0-based, by id order as SQLite reads them) of
 * an organization deleted: rows that every search plan must leave out.
 */
export function softDeleteSome(db: Db, orgId: string, from: number, to: number): void {
  const rows = db
    .select({ id: files.id })
    .from(files)
    .where(eq(files.organization_id, orgId))
    .limit(to)
    .all();
  for (const { id } of rows.slice(from))
    db.update(files).set({ is_deleted: true }).where(eq(files.id, id)).run();
}

/**
 * Gives every row a modification and a creation date from a few dozen days
 * (2001-09-09 on), so that sorts by date have many ties to break by id.
 */
export function spreadDates(db: Db): void {
  db.$client
    .prepare(
      `UPDATE files SET
         updated_at = strftime('%Y-%m-%dT%H:%M:%fZ', 1000000000 + (rowid * 7919) % 53 * 86400, 'unixepoch'),
         created_at = strftime('%Y-%m-%dT%H:%M:%fZ', 1000000000 + (rowid * 104729) % 41 * 86400, 'unixepoch')`,
    )
    .run();
}
