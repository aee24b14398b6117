import { execFileSync } from "node:child_process";
import { mkdtempSync, realpathSync, renameSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import sharp from "sharp";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createLogger } from "../../src/log.ts";
import { createMediaTools, demuxerOf } from "../../src/platform/ffmpeg.ts";
import { webpThumbnail } from "../../src/platform/images.ts";
import { fileStream, readUpTo } from "../../src/platform/local-files.ts";
import { readCoverArt, readMusicTags } from "../../src/platform/music.ts";
import { openForRead, type ReadableFile } from "../../src/platform/open-files.ts";
import { RecycledBuffers, recycledFileStream } from "../../src/platform/recycled-reads.ts";
import { missing } from "../helpers/programs.ts";

/**
 * Every reader of a host file (text preview, copy, zip, sharp, ffprobe and
 * ffmpeg, music tags) takes the file opened and checked, never its path.
 * The race they close (a path swapped for a symlink leaving the watched
 * folder between the check and the read) is played here step by step: the
 * checked real path is opened, then swapped for a link to a file outside,
 * then read. Each must still read the file that was checked; opening the
 * swapped path is refused as gone.
 */
describe.skipIf(missing("reads of opened files", "ffmpeg", "ffprobe"))("reads of opened files", () => {
  let root: string;
  let outside: string;
  const held: ReadableFile[] = [];
  const tools = createMediaTools({ ffmpeg_path: "ffmpeg", ffprobe_path: "ffprobe" }, createLogger("silent"));

  const ffmpeg = (...args: string[]) =>
    execFileSync("ffmpeg", ["-v", "error", "-y", "-nostdin", ...args], { timeout: 30_000 });
  /** Makes `name` in both places: `inside` under the root, `other` outside it. */
  const pair = (name: string, make: (path: string, inside: boolean) => void) => {
    make(join(root, name), true);
    make(join(outside, name), false);
  };

  /** Opens the checked path, then swaps it for a link leaving the root (the race, made to happen). */
  async function openThenSwap(name: string): Promise<ReadableFile> {
    const file = await openForRead(join(root, name), { reuse: false });
    held.push(file);
    renameSync(join(root, name), join(root, `${name}.moved`));
    symlinkSync(join(outside, name), join(root, name));
    return file;
  }

  beforeAll(async () => {
    root = realpathSync(mkdtempSync(join(tmpdir(), "attic-checked-in-")));
    outside = realpathSync(mkdtempSync(join(tmpdir(), "attic-checked-out-")));
    pair("note.txt", (p, inside) => writeFileSync(p, inside ? "inside" : "SECRET"));
    for (const inside of [true, false]) {
      const size = inside ? { width: 40, height: 30 } : { width: 70, height: 20 };
      await sharp({ create: { ...size, channels: 3, background: inside ? "red" : "blue" } })
        .png()
        .toFile(join(inside ? root : outside, "photo.png"));
    }
    pair("song.mp3", (p, inside) =>
      ffmpeg(
        ...["-f", "lavfi", "-i", `sine=frequency=440:duration=${inside ? 2 : 5}`],
        ...["-i", join(inside ? root : outside, "photo.png")],
        ...["-map", "0:a", "-map", "1:v", "-c:v", "copy", "-disposition:v", "attached_pic"],
        ...["-metadata", `title=${inside ? "Inside" : "Secret"}`, "-id3v2_version", "3", p],
      ),
    );
    pair("clip.mkv", (p, inside) =>
      ffmpeg(
        "-f",
        "lavfi",
        "-i",
        `testsrc2=size=${inside ? "64x48" : "96x80"}:rate=5:duration=${inside ? 2 : 6}`,
        p,
      ),
    );
  });
  afterAll(() => {
    for (const f of held) f.release();
    rmSync(root, { recursive: true, force: true });
    rmSync(outside, { recursive: true, force: true });
  });

  it("previews, copies and zips the bytes that were checked; the swapped path is refused as gone", async () => {
    const file = await openThenSwap("note.txt");
    await expect(openForRead(join(root, "note.txt"), { reuse: false })).rejects.toMatchObject({
      code: "ENOENT",
    });
    expect((await readUpTo(file, 100)).toString()).toBe("inside");
    const streamed: Buffer[] = [];
    for await (const c of fileStream(() => Promise.resolve(file))) streamed.push(c as Buffer);
    expect(Buffer.concat(streamed).toString()).toBe("inside");
    // fileStream released it: the zip reads a fresh open of the original, moved meanwhile.
    const again = await openForRead(join(root, "note.txt.moved"), { reuse: false });
    const zipped: Buffer[] = [];
    for await (const c of recycledFileStream(() => Promise.resolve(again), new RecycledBuffers()))
      zipped.push(Buffer.from(c as Buffer));
    expect(Buffer.concat(zipped).toString()).toBe("inside");
  });

  it("makes the image thumbnail of the file that was checked (sharp)", async () => {
    const file = await openThenSwap("photo.png");
    const thumb = await webpThumbnail(file, 128, 20);
    const meta = await sharp(thumb).metadata();
    expect([meta.width, meta.height]).toEqual([40, 30]);
  });

  it("reads the music tags and cover of the file that was checked (music-metadata)", async () => {
    const file = await openThenSwap("song.mp3");
    expect(await readMusicTags(file)).toMatchObject({ title: "Inside", has_cover: true });
    const cover = await readCoverArt(file);
    expect(cover && (await sharp(cover).metadata()).width).toBe(40);
  });

  it("probes, scans, sniffs and frames the file that was checked (ffprobe, ffmpeg)", async () => {
    const file = await openThenSwap("clip.mkv");
    expect(await demuxerOf(file)).toBe("matroska");
    const info = await tools.probe(file);
    expect(info?.video).toMatchObject({ width: 64, height: 48 });
    expect(info?.duration_seconds).toBeCloseTo(2, 0);
    const keyframes = await tools.keyframes(file, 10_000);
    expect(keyframes?.length).toBeGreaterThan(0);
    expect(Math.max(...(keyframes ?? []))).toBeLessThan(2);
    const frame = await tools.posterFrame(file, info?.duration_seconds);
    expect(frame && (await sharp(frame).metadata()).width).toBe(64);
  });
});
