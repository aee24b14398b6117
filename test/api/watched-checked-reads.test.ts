import { execFileSync } from "node:child_process";
import { renameSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import sharp from "sharp";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { slowPng } from "../helpers/images.ts";
import { missing } from "../helpers/programs.ts";
import { startServer, type TestServer } from "../helpers/server.ts";
import { folders, hostTree } from "./watched.helpers.ts";

/**
 * Watched files read by something other than a download (preview,
 * thumbnail, HLS, music tags) are read through the descriptor checked to be
 * inside the folder, never by their path opened again later.
 */
describe.skipIf(missing("checked reads of watched files", "ffmpeg"))("checked reads of watched files", () => {
  let s: TestServer;
  let token: string;
  let root: string;
  let outside: string;
  const ids: Record<string, string> = {};
  const png = (width: number, height: number, background: string) =>
    sharp({ create: { width, height, channels: 3, background } })
      .png()
      .toBuffer();
  const ffmpeg = (...args: string[]) =>
    execFileSync("ffmpeg", ["-v", "error", "-y", "-nostdin", ...args], { timeout: 30_000 });
  /** Swaps `name` under the root for a symlink to the file of that name outside it. */
  const swap = (name: string) => {
    renameSync(join(root, name), join(root, `${name}.real`));
    symlinkSync(join(outside, name), join(root, name));
  };
  const get = (path: string) => s.api("GET", path, { token });

  beforeAll(async () => {
    // Live watching off: the index must not follow the swaps made below.
    s = await startServer({ watch: { live: false, poll_interval: 3600 } });
    token = await s.login();
    root = hostTree({ "note.txt": "inside" });
    outside = hostTree({ "note.txt": "SECRET" });
    writeFileSync(join(root, "slow.png"), await slowPng());
    for (const name of ["photo.png", "raced.png"]) {
      writeFileSync(join(root, name), await png(40, 30, "red"));
      writeFileSync(join(outside, name), await png(70, 20, "blue"));
    }
    for (const [dir, title] of [
      [root, "Inside"],
      [outside, "Secret"],
    ] as const) {
      ffmpeg(
        "-f",
        "lavfi",
        "-i",
        "sine=frequency=440:duration=2",
        "-metadata",
        `title=${title}`,
        join(dir, "song.mp3"),
      );
      ffmpeg("-f", "lavfi", "-i", "testsrc2=size=64x48:rate=5:duration=2", join(dir, "clip.mkv"));
    }
    const f = folders(s, token);
    const created = await f.create({ name: "Host", path: root });
    await f.settled(created.body.id);
    const list = await get(`/api/v1/watched-folders/${created.body.id}/files?limit=100`);
    for (const file of list.body.files) ids[file.name] = file.id;
  });
  afterAll(async () => {
    await s.close();
    rmSync(root, { recursive: true, force: true });
    rmSync(outside, { recursive: true, force: true });
  });

  it("answers 404 for a preview, thumbnail, playback info or HLS of a file swapped for a link leaving the folder", async () => {
    for (const name of ["note.txt", "photo.png", "song.mp3", "clip.mkv"]) swap(name);
    const answers = await Promise.all(
      [
        `/api/v1/files/${ids["note.txt"]}/content`,
        `/api/v1/files/${ids["photo.png"]}/thumbnail?size=128`,
        `/api/v1/files/${ids["song.mp3"]}/playback-info`,
        `/api/v1/files/${ids["clip.mkv"]}/hls/master.m3u8`,
      ].map(async (path) => {
        const r = await get(path);
        return [path, r.status, r.body?.error?.code, r.text.includes("SECRET") || r.text.includes("Secret")];
      }),
    );
    for (const [path, ...answer] of answers)
      expect([path, ...answer]).toEqual([path, 404, "ERR_FILE_NOT_FOUND", false]);
  });

  it("never makes a thumbnail of what a path swapped while the request waited for its turn points at", async () => {
    // Four slow thumbnails (sizes are separate jobs) hold both of the queue's slots for seconds.
    const slow = [128, 256, 512, 1024].map((size) =>
      get(`/api/v1/files/${ids["slow.png"]}/thumbnail?size=${size}`),
    );
    let slowDone = 0;
    for (const p of slow) void p.then(() => slowDone++);
    await new Promise((r) => setTimeout(r, 500));
    // Checked now (inside the folder), then waits for a slot behind the slow ones.
    const raced = fetch(`${s.url}/api/v1/files/${ids["raced.png"]}/thumbnail?size=128`, {
      headers: { authorization: `Bearer ${token}` },
    });
    await new Promise((r) => setTimeout(r, 500));
    // The premise: its turn has not come (it comes after three of the slow ones end).
    expect(slowDone).toBeLessThan(3);
    swap("raced.png");
    const r = await raced;
    const bytes = Buffer.from(await r.arrayBuffer());
    // Made before the swap it would be the checked file's (40×30); never the outside one's (70×20).
    if (r.status === 200) expect((await sharp(bytes).metadata()).width).toBe(40);
    else expect([r.status, JSON.parse(bytes.toString()).error.code]).toEqual([404, "ERR_FILE_NOT_FOUND"]);
    await Promise.all(slow);
  }, 120_000);
});
