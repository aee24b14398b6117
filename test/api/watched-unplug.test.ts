import { execFileSync } from "node:child_process";
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer, type TestServer } from "../helpers/server.ts";
import { folders, hostTree, waitFor } from "./watched.helpers.ts";

/** Mounts a small tmpfs at `dir`; false (with the reason printed) when this process may not mount. */
function mountTmpfs(dir: string): boolean {
  try {
    execFileSync("mount", ["-t", "tmpfs", "-o", "size=4m", "tmpfs", dir], { stdio: "pipe" });
    return true;
  } catch (err) {
    console.log(
      `unplugged-drive case skipped: cannot mount a tmpfs (${(err as Error).message.split("\n")[0]})`,
    );
    return false;
  }
}

/**
 * Unmounts `dir` as a user pulling the drive would, once nothing has a file
 * open on it: right after a scan the hasher may still be reading one (the
 * kernel then refuses with "target is busy"); tried again for up to 5 s.
 */
async function unplug(dir: string): Promise<void> {
  for (let i = 0; ; i++) {
    try {
      execFileSync("umount", [dir], { stdio: "pipe" });
      return;
    } catch (err) {
      if (i >= 50 || !/busy/.test(String((err as { stderr?: Buffer }).stderr ?? err))) throw err;
      await new Promise((r) => setTimeout(r, 100));
    }
  }
}

describe("an empty watched root: emptied on purpose, or an unplugged drive", () => {
  let s: TestServer;
  let token: string;
  const roots: string[] = [];
  beforeAll(async () => {
    // Live watching off: the test decides when scans run.
    s = await startServer({ watch: { live: false, poll_interval: 3600 } });
    token = await s.login();
  });
  afterAll(async () => {
    await s.close();
    for (const r of roots) rmSync(r, { recursive: true, force: true });
  });

  it("follows a folder emptied on the same drive: its files leave the index", async () => {
    const root = hostTree({ "a.txt": "a", "sub/b.txt": "b" });
    roots.push(root);
    const f = folders(s, token);
    const created = await f.create({ name: "Emptied", path: root });
    await f.settled(created.body.id);
    expect(await f.names(created.body.id)).toEqual(["/Emptied/a.txt", "/Emptied/sub/b.txt"]);
    rmSync(join(root, "a.txt"));
    rmSync(join(root, "sub"), { recursive: true });
    await f.rescan(created.body.id);
    const folder = await f.get(created.body.id);
    expect(folder.status).not.toBe("offline");
    expect(await f.names(created.body.id)).toEqual([]);
  });

  it("keeps the index of a drive unplugged from its mount point, offline until it returns", async () => {
    const parent = hostTree({});
    roots.push(parent);
    const mnt = join(parent, "usb");
    mkdirSync(mnt);
    if (!mountTmpfs(mnt)) return;
    try {
      writeFileSync(join(mnt, "photo.jpg"), "jpeg");
      const f = folders(s, token);
      const created = await f.create({ name: "USB", path: mnt });
      await f.settled(created.body.id);
      expect(await f.names(created.body.id)).toEqual(["/USB/photo.jpg"]);
      await unplug(mnt);
      await s.api("POST", `/api/v1/watched-folders/${created.body.id}/scan`, { token });
      const offline = await waitFor(
        () => f.get(created.body.id),
        (x) => x.status === "offline",
      );
      expect(offline.status_message ?? offline.message ?? "").toMatch(/unplugged|unmounted/);
      expect(await f.names(created.body.id)).toEqual(["/USB/photo.jpg"]);
    } finally {
      try {
        execFileSync("umount", [mnt], { stdio: "pipe" });
      } catch {
        // already unmounted
      }
    }
  });

  it("keeps the index of an unplugged drive whose mount point something wrote into meanwhile", async () => {
    const parent = hostTree({});
    roots.push(parent);
    const mnt = join(parent, "disk");
    mkdirSync(mnt);
    if (!mountTmpfs(mnt)) return;
    try {
      writeFileSync(join(mnt, "film.mkv"), "film");
      const f = folders(s, token);
      const created = await f.create({ name: "Disk", path: mnt });
      const scanned = await f.settled(created.body.id);
      expect(await f.names(created.body.id)).toEqual(["/Disk/film.mkv"]);
      await unplug(mnt);
      // A download client, not knowing the drive is gone, writes into the bare mount point.
      mkdirSync(join(mnt, "downloads"));
      writeFileSync(join(mnt, "downloads", "new.part"), "partial");
      await s.api("POST", `/api/v1/watched-folders/${created.body.id}/scan`, { token });
      const offline = await waitFor(
        () => f.get(created.body.id),
        // Offline, or scanned again (and the index followed the bare directory).
        (x) => x.status === "offline" || x.last_scan_finished_at > scanned.last_scan_finished_at,
      );
      expect(offline.status).toBe("offline");
      expect(offline.status_message ?? "").toMatch(/unplugged/);
      expect(await f.names(created.body.id)).toEqual(["/Disk/film.mkv"]);
    } finally {
      try {
        execFileSync("umount", [mnt], { stdio: "pipe" });
      } catch {
        // already unmounted
      }
    }
  });
});
