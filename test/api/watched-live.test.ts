import { execFileSync } from "node:child_process";
import { mkdirSync, renameSync, rmSync } from "node:fs";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterAll, beforeAll, describe, it } from "vitest";
import { startServer, type TestServer } from "../helpers/server.ts";
import { folders, hostTree, waitFor, write } from "./watched.helpers.ts";

/** Live sync after the first scan: host changes that live watching must follow. */
describe("live sync of watched folders", () => {
  let s: TestServer;
  let f: ReturnType<typeof folders>;
  let token: string;
  const roots: string[] = [];
  /** A watched host tree, scanned and live. */
  const mounted = async (name: string, files: Record<string, string>) => {
    const root = hostTree(files);
    roots.push(root);
    const { body } = await f.create({ name, path: root });
    await f.settled(body.id);
    return { root, id: body.id as string };
  };
  const listed = (id: string, want: string[]) =>
    waitFor(
      () => f.names(id),
      (names) => JSON.stringify(names) === JSON.stringify([...want].sort()),
    );

  beforeAll(async () => {
    s = await startServer({ watch: { debounce: 0.2 } });
    token = await s.login();
    f = folders(s, token);
  });
  afterAll(async () => {
    await s.close();
    for (const r of roots) rmSync(r, { recursive: true, force: true });
  });

  it("follows a directory made at the name of one moved away or deleted", async () => {
    const { root, id } = await mounted("Swapped", { "d/a.txt": "a", "e/b.txt": "b" });
    renameSync(join(root, "d"), join(root, "d.old"));
    mkdirSync(join(root, "d"));
    rmSync(join(root, "e"), { recursive: true });
    mkdirSync(join(root, "e"));
    await listed(id, ["/Swapped/d.old/a.txt"]);
    write(root, "d/new.txt", "n");
    write(root, "e/new.txt", "n");
    await listed(id, ["/Swapped/d.old/a.txt", "/Swapped/d/new.txt", "/Swapped/e/new.txt"]);
  });

  it("finds the changes of a burst whose events the kernel dropped", async () => {
    const { root, id } = await mounted("Burst", { "A/keep.txt": "k", "B/old.txt": "o", "C/gone.txt": "g" });
    // The server's event loop is held (this process waits for the child) while 10,000 files are
    // written (two events each): the kernel's queue (fs.inotify.max_queued_events, 16,384) fills,
    // and the changes made after it, in B and C, raise no event at all.
    const script = `const fs = require("node:fs");
      for (let i = 0; i < 10000; i++) fs.writeFileSync(${JSON.stringify(root)} + "/A/f" + i + ".txt", "x");
      fs.writeFileSync(${JSON.stringify(root)} + "/B/late.txt", "late");
      fs.rmSync(${JSON.stringify(root)} + "/C/gone.txt");`;
    execFileSync(process.execPath, ["-e", script]);
    // The held loop outlived the keep-alive of the client's idle sockets: let their timers close
    // them before the next request (else it goes out on one the server is closing: ECONNRESET).
    await new Promise((r) => setTimeout(r, 100));
    const found = async (q: string) =>
      (await s.api("GET", `/api/v1/search?q=${q}`, { token })).body.files.map(
        (x: { path: string }) => x.path,
      );
    await waitFor(
      async () => [...(await found("late")), ...(await found("gone"))],
      (paths) => JSON.stringify(paths) === JSON.stringify(["/Burst/B/late.txt"]),
    );
    await waitFor(
      () => f.get(id),
      (x) => x.files_indexed === 10_003,
    );
  });

  it("goes on syncing after a sync failed, even when its status could not be written", {
    timeout: 60_000,
  }, async () => {
    const { root, id } = await mounted("Locked", { "a.txt": "a" });
    // Another process holds the database's write lock past the busy timeout (a backup script, an
    // admin's sqlite3 shell; a full disk fails the same writes): the sync fails, and so does
    // writing the folder's error status.
    const other = new Database(join(s.dataDir, "attic.db"));
    try {
      other.exec("BEGIN IMMEDIATE");
      write(root, "b.txt", "b");
      await waitFor(
        async () => (await s.api("GET", "/health")).body.details?.watched_folders?.status,
        (status) => status === "degraded",
        45_000,
      );
      other.exec("COMMIT");
    } finally {
      other.close();
    }
    write(root, "c.txt", "c");
    await listed(id, ["/Locked/a.txt", "/Locked/b.txt", "/Locked/c.txt"]);
    // Live again: the error is over.
    await waitFor(
      () => f.get(id),
      (x) => x.status === "watching",
    );
  });
});
