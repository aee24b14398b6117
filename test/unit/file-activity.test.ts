import {
  appendFileSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { afterAll, describe, expect, it } from "vitest";
import { fileActivity, REARM_MS } from "../../src/platform/file-activity.ts";

const dir = mkdtempSync(join(tmpdir(), "attic-activity-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** How many inotify watches this process holds on the file at `path` (Linux: /proc/self/fdinfo of the inotify descriptors). */
function watchesOn(path: string): number {
  const ino = statSync(path).ino.toString(16);
  let n = 0;
  for (const fd of readdirSync("/proc/self/fd")) {
    let target: string;
    try {
      target = readlinkSync(`/proc/self/fd/${fd}`);
    } catch {
      continue;
    }
    if (target !== "anon_inode:inotify") continue;
    const info = readFileSync(`/proc/self/fdinfo/${fd}`, "utf8");
    n += info
      .split("\n")
      .filter((line) => line.startsWith("inotify ") && line.includes(` ino:${ino} `)).length;
  }
  return n;
}

/** Waits until `ok()` holds, a turn of the event loop at a time (at most 2 s). */
async function until(ok: () => boolean): Promise<boolean> {
  for (let i = 0; i < 200 && !ok(); i++) await sleep(10);
  return ok();
}

describe.skipIf(process.platform !== "linux")("fileActivity", () => {
  it("reports a write, then rests: no watch and a change at every read until it is armed again", async () => {
    const path = join(dir, "wal");
    writeFileSync(path, "");
    const activity = fileActivity(path);
    if (!activity) throw new Error("the temp dir cannot be watched");
    expect(fileActivity(path)).toBe(activity); // one watcher per path
    expect(watchesOn(path)).toBe(1);
    const before = activity.count;
    expect(activity.count).toBe(before); // armed: nothing changed, nothing reported

    appendFileSync(path, "frame");
    expect(await until(() => activity.count !== before)).toBe(true);
    // Fired: the watch is closed, so further writes cost the writer no events...
    expect(watchesOn(path)).toBe(0);
    appendFileSync(path, "frame");
    // ...and until it is armed again, every read is a change (callers ask every time).
    const resting = activity.count;
    expect(activity.count).toBeGreaterThan(resting);

    await sleep(REARM_MS + 20);
    const armed = activity.count; // armed again by this read
    expect(watchesOn(path)).toBe(1);
    expect(activity.count).toBe(armed);
    appendFileSync(path, "frame");
    expect(await until(() => activity.count > armed)).toBe(true);
  });

  it("follows a file replaced at its path", async () => {
    const path = join(dir, "replaced");
    writeFileSync(path, "");
    const activity = fileActivity(path);
    if (!activity) throw new Error("the temp dir cannot be watched");
    const before = activity.count;
    rmSync(path);
    writeFileSync(path, "new");
    expect(await until(() => activity.count !== before)).toBe(true);
    await sleep(REARM_MS + 20);
    const armed = activity.count;
    expect(watchesOn(path)).toBe(1); // the new file's inode
    appendFileSync(path, "frame");
    expect(await until(() => activity.count > armed)).toBe(true);
  });

  it("is undefined for a file that cannot be watched", () => {
    expect(fileActivity(join(dir, "missing"))).toBeUndefined();
  });
});
