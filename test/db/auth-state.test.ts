import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterAll, describe, expect, it } from "vitest";
import { changeWatch } from "../../src/db/change-watch.ts";
import { openDb } from "../../src/db/client.ts";
import { organizations, roles } from "../../src/db/schema.ts";
import { createUsersRepo } from "../../src/domain/users/users.repo.ts";

/**
 * Authentication reads a user's row and permissions from a cache that any
 * write empties. These tests change the rows behind it, through the same
 * connection and through another one (an `attic admin` command run beside
 * the server), and expect the very next read to see the change.
 */
/** Polls `check` once per event-loop turn for up to a second; true once it held. */
async function eventually(check: () => boolean): Promise<boolean> {
  const until = Date.now() + 1000;
  while (Date.now() < until) {
    if (check()) return true;
    await new Promise((r) => setTimeout(r, 1));
  }
  return check();
}

describe("authentication state cache", () => {
  const dir = mkdtempSync(join(tmpdir(), "attic-auth-state-"));
  const file = join(dir, "a.db");
  const db = openDb({ file });
  const other = new Database(file);
  afterAll(() => {
    other.close();
    db.$client.close();
    rmSync(dir, { recursive: true, force: true });
  });
  const at = new Date().toISOString();
  db.insert(organizations).values({ id: "org", name: "Home", created_at: at, updated_at: at }).run();
  for (const [id, permissions] of [
    ["reader", ["file:read"]],
    ["writer", ["file:read", "file:write"]],
  ] as const) {
    db.insert(roles)
      .values({
        id,
        organization_id: "org",
        name: id,
        permissions: [...permissions],
        created_at: at,
        updated_at: at,
      })
      .run();
  }
  const users = createUsersRepo(db);
  users.insertWithRole(
    {
      id: "u1",
      organization_id: "org",
      username: "ada",
      email: "ada@example.test",
      password_hash: "x",
      created_at: at,
      updated_at: at,
    },
    "writer",
  );

  it("reports a change by this connection and by another one, once", async () => {
    const watch = changeWatch(db.$client);
    expect(watch.changed()).toBe(true); // the first call has nothing to compare with
    expect(watch.changed()).toBe(false);
    db.$client.prepare("UPDATE users SET display_name = 'A' WHERE id = 'u1'").run();
    expect(watch.changed()).toBe(true);
    expect(watch.changed()).toBe(false);
    other.prepare("UPDATE users SET display_name = 'B' WHERE id = 'u1'").run();
    // Another connection's commit is seen from the next turn of the event loop (the WAL's inotify event).
    expect(await eventually(() => watch.changed())).toBe(true);
    expect(watch.changed()).toBe(false);
  });

  it("sees a role change at once", () => {
    expect(users.authState("u1")?.permissions).toEqual(["file:read", "file:write"]);
    expect(users.authState("u1")).toBe(users.authState("u1")); // served from the cache
    users.replaceRoles("u1", "reader");
    expect(users.authState("u1")?.permissions).toEqual(["file:read"]);
  });

  it("sees a deactivation written by another connection from the next turn of the event loop", async () => {
    expect(users.authState("u1")?.user.is_active).toBe(true);
    other.prepare("UPDATE users SET is_active = 0 WHERE id = 'u1'").run();
    expect(await eventually(() => users.authState("u1")?.user.is_active === false)).toBe(true);
  });

  it("sees a role's permissions edited in place, and a deleted user", async () => {
    other.prepare("UPDATE users SET is_active = 1 WHERE id = 'u1'").run();
    expect(await eventually(() => users.authState("u1")?.user.is_active === true)).toBe(true);
    expect(users.authState("u1")?.permissions).toEqual(["file:read"]);
    db.$client
      .prepare(`UPDATE roles SET permissions = '["file:read","tag:write"]' WHERE id = 'reader'`)
      .run();
    expect(users.authState("u1")?.permissions).toEqual(["file:read", "tag:write"]);
    other.prepare("DELETE FROM users WHERE id = 'u1'").run();
    expect(await eventually(() => users.authState("u1") === undefined)).toBe(true);
    expect(users.authState("nobody")).toBeUndefined();
  });

  it("hands out frozen state", () => {
    users.insertWithRole(
      {
        id: "u2",
        organization_id: "org",
        username: "bo",
        email: "bo@example.test",
        password_hash: "x",
        created_at: at,
        updated_at: at,
      },
      "reader",
    );
    const state = users.authState("u2")!;
    expect(Object.isFrozen(state.user)).toBe(true);
    expect(Object.isFrozen(state.permissions)).toBe(true);
  });
});
