import { mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { demuxerOf, inputArgs } from "../../src/platform/ffmpeg.ts";
import { openForRead } from "../../src/platform/open-files.ts";

/** Runs without ffmpeg: what Attic would hand it, decided from the bytes alone. */
describe("ffmpeg inputs", () => {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), "attic-ffin-")));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  /** The demuxer of a file holding `bytes`, sniffed through its opened descriptor. */
  const sniff = async (name: string, bytes: string | Uint8Array) => {
    const p = join(dir, name);
    writeFileSync(p, bytes);
    const file = await openForRead(p, { reuse: false });
    try {
      return await demuxerOf(file);
    } finally {
      file.release();
    }
  };

  it("forces the demuxer sniffed from the content, whatever the name says", async () => {
    // An ISO-BMFF `ftyp` box: an MP4 whatever its name.
    const ftyp = new Uint8Array([
      0,
      0,
      0,
      0x18,
      ...Buffer.from("ftypisom"),
      0,
      0,
      2,
      0,
      ...Buffer.from("isomiso2mp41"),
    ]);
    expect(await sniff("clip.mkv", ftyp)).toBe("mov");
    const ebml = new Uint8Array([
      0x1a,
      0x45,
      0xdf,
      0xa3,
      0x9f,
      0x42,
      0x86,
      0x81,
      0x01,
      0x42,
      0x82,
      0x88,
      ...Buffer.from("matroska"),
    ]);
    expect(await sniff("movie.mp4", ebml)).toBe("matroska");
  });

  it("refuses playlists, concat lists and anything unknown", async () => {
    const cases = {
      "holiday.mp4": "#EXTM3U\n#EXTINF:2.0,\nfile:///srv/private.mp4\n#EXT-X-ENDLIST\n",
      "list.mkv": "ffconcat version 1.0\nfile '/srv/private.mp4'\n",
      "stream.mp4": "v=0\no=- 0 0 IN IP4 127.0.0.1\ns=x\nc=IN IP4 127.0.0.1\nm=video 5004 RTP/AVP 96\n",
      "manifest.mp4": '<?xml version="1.0"?><MPD xmlns="urn:mpeg:dash:schema:mpd:2011"></MPD>',
      "empty.mp4": "",
    };
    for (const [name, text] of Object.entries(cases)) {
      expect([name, await sniff(name, text)]).toEqual([name, undefined]);
    }
  });

  it("allows only the file protocol and names no host path, only the descriptor handed down", () => {
    const args = inputArgs("mov");
    expect(args.slice(0, 2)).toEqual(["-protocol_whitelist", "file"]);
    expect(args).toContain("-f");
    expect(args[args.indexOf("-f") + 1]).toBe("mov");
    expect(args.at(-1)).toBe("file:/proc/self/fd/3");
    expect(args[args.indexOf("-enable_drefs") + 1]).toBe("0");
  });
});
