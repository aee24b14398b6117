import { spawnSync } from "node:child_process";
import { closeSync, mkdirSync, openSync, renameSync, rmSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { upload } from "../helpers/files.ts";
import { startServer, type TestServer } from "../helpers/server.ts";
import { folders, hostTree, waitFor } from "./watched.helpers.ts";

/**
 * A network mount that hangs, made for real: a FUSE mount whose server
 * never answers (the test holds /dev/fuse and reads nothing from it), so
 * every stat or realpath of the mount point blocks, as on a hard-mounted NFS
 * share whose server is gone, until the descriptor is closed (the kernel
 * then fails the waiting calls with ENOTCONN). Undefined, with the reason
 * printed, where this process may not mount.
 */
function mountHung(dir: string): { release(): void } | undefined {
  let fd: number;
  try {
    fd = openSync("/dev/fuse", "r+");
  } catch (err) {
    console.log(`hung-mount case skipped: cannot open /dev/fuse (${(err as Error).message})`);
    return undefined;
  }
  const r = spawnSync(
    "mount",
    ["-t", "fuse", "-o", "fd=3,rootmode=40000,user_id=0,group_id=0", "attic-hung", dir],
    { stdio: ["ignore", "pipe", "pipe", fd] },
  );
  if (r.status !== 0) {
    closeSync(fd);
    console.log(`hung-mount case skipped: cannot mount FUSE (${String(r.stderr ?? r.error).trim()})`);
    return undefined;
  }
  return {
    release() {
      closeSync(fd);
      spawnSync("umount", ["-l", dir]);
    },
  };
}

describe("an offline watched folder whose host path hangs", () => {
  let s: TestServer;
  let token: string;
  let root: string;
  let hung: { release(): void } | undefined;
  beforeAll(async () => {
    // Probes every second (poll_interval bounds the offline probe's 3 s), no live watching.
    s = await startServer({ watch: { live: false, poll_interval: 1 } });
    token = await s.login();
    root = hostTree({ "share/a.txt": "a" });
  });
  afterAll(async () => {
    hung?.release();
    await s.close();
    rmSync(root, { recursive: true, force: true });
  });

  it("never lets its probes take every thread of libuv's pool: the server goes on serving files", async () => {
    const up = await upload(s, token, "stored.txt", "stored bytes");
    expect(up.status).toBe(201);
    const f = folders(s, token);
    const share = join(root, "share");
    const created = await f.create({ name: "Share", path: share });
    await f.settled(created.body.id);
    // The share goes away (offline), then its mount point comes back as a mount that hangs.
    renameSync(share, join(root, "gone"));
    await f.rescan(created.body.id);
    await waitFor(
      () => f.get(created.body.id),
      (x) => x.status === "offline",
    );
    mkdirSync(share);
    hung = mountHung(share);
    if (!hung) return;
    // Long enough for a probe a second to have blocked every one of the pool's four threads.
    await new Promise((r) => setTimeout(r, 6000));
    const dl = await fetch(`${s.url}/api/v1/files/${up.body.id}/download`, {
      headers: { authorization: `Bearer ${token}` },
      signal: AbortSignal.timeout(5000),
    }).then(
      async (r) => [r.status, await r.text()],
      (err: Error) => [err.name, ""],
    );
    // On a stalled pool the download never answers: the 5 s abort fails it (no timing asserted here).
    expect(dl).toEqual([200, "stored bytes"]);
    // The folder stays offline, and says why.
    const folder = await waitFor(
      () => f.get(created.body.id),
      (x) => /does not answer/.test(x.status_message ?? ""),
    );
    expect(folder.status).toBe("offline");
    // The mount goes (the hung calls fail at once) and the share is back: probed and scanned as before.
    hung.release();
    hung = undefined;
    rmSync(share, { recursive: true, force: true });
    renameSync(join(root, "gone"), share);
    const back = await waitFor(
      () => f.get(created.body.id),
      (x) => x.status !== "offline",
    );
    expect(back.status_message ?? "").not.toMatch(/does not answer/);
  }, 60_000);
});
