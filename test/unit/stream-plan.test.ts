import { describe, expect, it } from "vitest";
import {
  BROWSER_CODECS,
  decide,
  gridLayout,
  keyframeLayout,
  SEGMENT_SECONDS,
  type StreamPlan,
  segmentArgs,
} from "../../src/domain/playback/stream-plan.ts";
import type { MediaInfo, MediaStream } from "../../src/platform/ffmpeg.ts";

const stream = (
  index: number,
  type: MediaStream["type"],
  codec: string,
  extra: Partial<MediaStream> = {},
) => ({
  index,
  type,
  codec,
  default: false,
  picture: false,
  ...extra,
});

const film: MediaInfo = {
  duration_seconds: 100,
  streams: [
    stream(0, "video", "hevc", { height: 2160, width: 3840 }),
    stream(1, "audio", "ac3", { language: "eng", default: true }),
    stream(2, "audio", "aac", { language: "fre" }),
    stream(3, "subtitle", "subrip"),
  ],
};

describe("playback decisions", () => {
  it("plays browser-safe files directly, and converts what the client cannot decode", () => {
    const mp4: MediaInfo = { streams: [stream(0, "video", "h264"), stream(1, "audio", "aac")] };
    expect(decide(mp4, "video/mp4", BROWSER_CODECS).mode).toBe("direct");
    // The same codecs in MKV: the container is what the browser lacks.
    expect(decide(mp4, "video/x-matroska", BROWSER_CODECS)).toMatchObject({
      mode: "remux",
      video: { action: "copy" },
      audio: { action: "copy" },
    });
    expect(decide(film, "video/x-matroska", BROWSER_CODECS)).toMatchObject({
      mode: "transcode",
      video: { index: 0, action: "h264" },
      audio: { index: 1, action: "aac", language: "eng" },
    });
    // The second audio track of a direct-playable file needs HLS.
    const twoTracks: MediaInfo = { streams: [...mp4.streams, stream(2, "audio", "aac")] };
    expect(decide(twoTracks, "video/mp4", BROWSER_CODECS, 2)).toMatchObject({
      mode: "remux",
      audio: { index: 2 },
    });
    // Cover art is not a video track: a FLAC with a picture is music.
    const flac: MediaInfo = {
      streams: [stream(0, "audio", "flac"), stream(1, "video", "png", { picture: true })],
    };
    expect(decide(flac, "audio/flac", BROWSER_CODECS)).toMatchObject({ mode: "direct" });
    expect(decide(flac, "audio/x-ape", BROWSER_CODECS)).toMatchObject({
      mode: "transcode",
      audio: { action: "aac" },
    });
  });

  it("cuts a converted file every 3 s and a copied one at keyframes, at least 3 s apart", () => {
    expect(SEGMENT_SECONDS).toBe(3);
    expect(gridLayout(10)).toEqual({ starts: [0, 3, 6, 9], duration: 10 });
    expect(gridLayout(9).starts).toEqual([0, 3, 6]);
    expect(keyframeLayout([0, 1, 2, 3.5, 4, 8, 9.8], 10).starts).toEqual([0, 3.5, 8]);
  });

  it("builds ffmpeg arguments from numbers and fixed options only, starting where asked", () => {
    const plan = decide(film, "video/x-matroska", BROWSER_CODECS) as StreamPlan;
    const args = segmentArgs({
      plan,
      layout: gridLayout(100),
      from: 10,
      demuxer: "matroska",
      listFile: "list-1.csv",
      hwaccel: "none",
      height: 2160,
    });
    const at = (flag: string) => args[args.indexOf(flag) + 1];
    expect(at("-ss")).toBe("30.000");
    expect(args.indexOf("-ss")).toBeLessThan(args.indexOf("-i"));
    // No host path: ffmpeg reads the descriptor the server opened and checked, handed down as its fd 3.
    expect(at("-i")).toBe("file:/proc/self/fd/3");
    expect(at("-protocol_whitelist")).toBe("file");
    expect(at("-c:v")).toBe("libx264");
    expect(at("-vf")).toBe("scale=-2:1080");
    expect(at("-force_key_frames")?.startsWith("30.000,33.000,36.000")).toBe(true);
    expect(at("-segment_times")?.startsWith("33.000,36.000")).toBe(true);
    expect(at("-segment_start_number")).toBe("10");
    expect(at("-metadata:s:a:0")).toBe("language=eng");

    const hw = segmentArgs({
      plan,
      layout: gridLayout(100),
      from: 0,
      demuxer: "matroska",
      listFile: "l.csv",
      hwaccel: "vaapi",
    });
    expect(hw.slice(0, 2)).toEqual(["-vaapi_device", "/dev/dri/renderD128"]);
    expect(hw[hw.indexOf("-c:v") + 1]).toBe("h264_vaapi");
    expect(hw).not.toContain("-ss");
    for (const [accel, encoder] of [
      ["qsv", "h264_qsv"],
      ["nvenc", "h264_nvenc"],
    ] as const) {
      const a = segmentArgs({
        plan,
        layout: gridLayout(10),
        from: 0,
        demuxer: "matroska",
        listFile: "l",
        hwaccel: accel,
      });
      expect(a[a.indexOf("-c:v") + 1]).toBe(encoder);
    }
  });
});
