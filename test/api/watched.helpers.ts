import { mkdirSync, mkdtempSync, realpathSync, writeFileSync } from "node:fs";
import { mkdir, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import Database from "better-sqlite3";
import type { TestServer } from "../helpers/server.ts";

/** Polls `fn` every 100 ms until `ok` holds (bounded: throws with the last value after `ms`). */
export async function waitFor<T>(fn: () => Promise<T>, ok: (v: T) => boolean, ms = 15_000): Promise<T> {
  const deadline = Date.now() + ms;
  let last: T = await fn();
  while (!ok(last)) {
    if (Date.now() > deadline)
      throw new Error(`condition not met within ${ms} ms; last: ${JSON.stringify(last)}`);
    await new Promise((r) => setTimeout(r, 100));
    last = await fn();
  }
  return last;
}

/** A fresh host directory (real path) holding `files` (relative path → content). */
export function hostTree(files: Record<string, string>): string {
  const root = realpathSync(mkdtempSync(join(tmpdir(), "attic-host-")));
  for (const [rel, content] of Object.entries(files)) write(root, rel, content);
  return root;
}

/**
 * hostTree for many files, without holding the event loop. The test's
 * server runs on that loop: a stall of seconds outlives the keep-alive of
 * the client's idle sockets, whose timers only fire after it, so the next
 * request goes out on a socket the server is about to close (read
 * ECONNRESET).
 */
export async function hostTreeAsync(files: Record<string, string>): Promise<string> {
  const root = realpathSync(mkdtempSync(join(tmpdir(), "attic-host-")));
  const entries = Object.entries(files);
  for (let i = 0; i < entries.length; i += 256)
    await Promise.all(
      entries.slice(i, i + 256).map(async ([rel, content]) => {
        await mkdir(dirname(join(root, rel)), { recursive: true });
        await writeFile(join(root, rel), content);
      }),
    );
  return root;
}

export function write(root: string, rel: string, content: string): void {
  mkdirSync(dirname(join(root, rel)), { recursive: true });
  writeFileSync(join(root, rel), content);
}

/** Watched-folder helpers bound to one server and token. */
export function folders(s: TestServer, token: string) {
  const get = async (id: string) => (await s.api("GET", `/api/v1/watched-folders/${id}`, { token })).body;
  const names = async (id: string) => {
    const r = await s.api("GET", `/api/v1/watched-folders/${id}/files?limit=1000`, { token });
    if (!Array.isArray(r.body.files)) throw new Error(`files of ${id}: ${r.status} ${r.text}`);
    return (r.body.files as { path: string }[]).map((f) => f.path).sort();
  };
  return {
    get,
    names,
    async create(body: Record<string, unknown>) {
      return s.api("POST", "/api/v1/watched-folders", { token, body });
    },
    /** Waits for the first scan of a new folder (or one finishing after `since`). */
    async settled(id: string, since = "") {
      return waitFor(
        () => get(id),
        (f) =>
          ["watching", "polling", "offline", "error"].includes(f.status) &&
          (f.last_scan_finished_at ?? "") > since,
      );
    },
    /** Rescans; `full` asks for a full one in the query string, `"body"` in a JSON body. */
    async rescan(id: string, full: boolean | "body" = false) {
      const before = (await get(id)).last_scan_finished_at ?? "";
      const r = await s.api(
        "POST",
        `/api/v1/watched-folders/${id}/scan${full === true ? "?full=true" : ""}`,
        {
          token,
          ...(full === "body" ? { body: { full: true } } : {}),
        },
      );
      if (r.status !== 202) throw new Error(`scan: ${r.status} ${r.text}`);
      return waitFor(
        () => get(id),
        (f) => (f.last_scan_finished_at ?? "") > before || f.status === "offline",
      );
    },
  };
}

/** Rows of `s`'s database, read on a read-only connection of the test's own. */
export function dbRows<T>(s: TestServer, sql: string, ...params: unknown[]): T[] {
  const db = new Database(join(s.dataDir, "attic.db"), { readonly: true });
  try {
    return db.prepare(sql).all(...params) as T[];
  } finally {
    db.close();
  }
}
