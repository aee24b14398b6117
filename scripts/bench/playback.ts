import { existsSync, mkdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import { type AtticProcess, startAttic, uploadWithCurl, WORK } from "./lib/attic.ts";
import { CLI_CPU, run, SRV_CPU } from "./lib/proc.ts";
import { type Figure, figure, say } from "./lib/report.ts";
import { median } from "./lib/stats.ts";

const RUNS = Number(process.env.PLAYBACK_RUNS ?? 3);
const SECONDS = 90;
const MEDIA = join(WORK, "playback-media");

/** Test films made once by ffmpeg (cached under BENCH_WORK). */
async function film(name: string, video: string[], audio: string[], size: string): Promise<string> {
  const path = join(MEDIA, name);
  if (existsSync(path)) return path;
  mkdirSync(MEDIA, { recursive: true });
  say(`making ${name} (${SECONDS} s at ${size})…`);
  const r = await run(
    "ffmpeg",
    [
      ...["-v", "error", "-y"],
      ...["-f", "lavfi", "-i", `testsrc2=size=${size}:rate=30:duration=${SECONDS}`],
      ...["-f", "lavfi", "-i", `sine=frequency=440:duration=${SECONDS}`],
      ...video,
      ...audio,
      `${path}.part.${name.split(".").pop()}`,
    ],
    { timeoutMs: 1_200_000 },
  );
  if (r.code !== 0) throw new Error(`ffmpeg: ${r.stderr}`);
  await run("mv", [`${path}.part.${name.split(".").pop()}`, path]);
  return path;
}

/** Seconds ffmpeg (the client, pinned to the client CPU) takes to decode the first video frame of `url`. */
async function firstFrame(url: string): Promise<number> {
  const r = await run("ffmpeg", ["-v", "error", "-i", url, "-frames:v", "1", "-f", "null", "-"], {
    cpu: CLI_CPU,
    timeoutMs: 120_000,
  });
  if (r.code !== 0) throw new Error(`first frame of ${url}: ${r.stderr}`);
  return r.seconds;
}

/** The same encoder settings as Attic's transcodes (stream-plan.ts), for the hand-run reference. */
const X264 = ["-c:v", "libx264", "-preset", "veryfast", "-crf", "23", "-maxrate", "10M", "-bufsize", "20M"];
const X264_TAIL = ["-profile:v", "high", "-pix_fmt", "yuv420p", "-c:a", "aac", "-ac", "2", "-b:a", "192k"];

/** ffmpeg by hand, on the server's CPU like Attic's own ffmpeg: convert `seconds` from `at` into MPEG-TS. */
async function byHand(src: string, at: number, seconds: number | undefined): Promise<number> {
  const out = join(MEDIA, "hand.ts");
  const r = await run(
    "ffmpeg",
    [
      ...["-v", "error", "-y"],
      ...(at > 0 ? ["-ss", String(at)] : []),
      ...["-i", src],
      ...(seconds ? ["-t", String(seconds)] : []),
      ...X264,
      ...X264_TAIL,
      ...["-f", "mpegts", out],
    ],
    { cpu: SRV_CPU, timeoutMs: 1_200_000 },
  );
  rmSync(out, { force: true });
  if (r.code !== 0) throw new Error(`ffmpeg by hand: ${r.stderr}`);
  return r.seconds;
}

async function info(a: AtticProcess, id: string, query = ""): Promise<PlaybackInfo> {
  const r = await a.api("GET", `/api/v1/files/${id}/playback-info${query}`);
  if (r.status !== 200) throw new Error(`playback-info: ${r.status}`);
  return r.body as PlaybackInfo;
}

interface PlaybackInfo {
  mode: string;
  hls_url: string;
  direct_url?: string;
}

/** The media playlist's URL of a master playlist (its token in the path). */
async function variantOf(a: AtticProcess, hlsUrl: string): Promise<URL> {
  const master = await (await fetch(`${a.url}${hlsUrl}`)).text();
  return new URL(master.split("\n").find((l) => l.startsWith("t/")) ?? "", `${a.url}${hlsUrl}`);
}

/**
 * Playback (issue 15) on `build/attic`'s code path: time from "play" to the
 * first decoded frame for a direct MP4, and to the first HLS segment (what a
 * player shows its first frame from) for a remuxed H.264 MKV and transcoded
 * 1080p H.264 and HEVC MKVs; seek latency into the middle of a transcode;
 * transcode speed as a multiple of real time at 1080p and 720p. Each against
 * ffmpeg run by hand with the same settings on the same CPU.
 */
export async function playbackBench(): Promise<Figure[]> {
  const mp4 = await film(
    "h264-1080.mp4",
    ["-c:v", "libx264", "-preset", "ultrafast", "-g", "60"],
    ["-c:a", "aac", "-movflags", "+faststart"],
    "1920x1080",
  );
  const mkv = await film(
    "h264-1080.mkv",
    ["-c:v", "libx264", "-preset", "ultrafast", "-g", "60"],
    ["-c:a", "aac"],
    "1920x1080",
  );
  const hevc = await film(
    "hevc-1080.mkv",
    ["-c:v", "libx265", "-preset", "ultrafast", "-x265-params", "log-level=error"],
    ["-c:a", "ac3"],
    "1920x1080",
  );
  const hevc720 = await film(
    "hevc-720.mkv",
    ["-c:v", "libx265", "-preset", "ultrafast", "-x265-params", "log-level=error"],
    ["-c:a", "ac3"],
    "1280x720",
  );
  const figures: Figure[] = [];
  const dataDir = join(WORK, "playback-data");
  rmSync(dataDir, { recursive: true, force: true });
  mkdirSync(dataDir, { recursive: true });
  // Every Attic sample runs on a freshly started server (same data): no conversion left from an
  // earlier sample, and none still using the CPU while a reference is measured.
  const ids: Record<string, string> = {};
  let peak = 0;
  const withAttic = async <T>(fn: (a: AtticProcess) => Promise<T>): Promise<T> => {
    const a = await startAttic({ dataDir });
    try {
      return await fn(a);
    } finally {
      peak = Math.max(peak, a.peakRssMiB());
      await a.stop();
    }
  };
  await withAttic(async (a) => {
    for (const [name, path] of Object.entries({ mp4, mkv, hevc, hevc720 })) {
      ids[name] = (await uploadWithCurl(a, path, `${name}.${path.split(".").pop()}`)).file.id;
    }
  });
  const add = (
    metric: string,
    unit: string,
    attic: number[],
    hand: number[],
    refName: string,
    higher: boolean,
    note: string,
  ) =>
    figures.push(
      figure({
        benchmark: "playback",
        metric,
        unit,
        attic: median(attic),
        reference: median(hand),
        referenceName: refName,
        higherIsBetter: higher,
        atticPeakRssMiB: peak,
        atticSamples: attic,
        referenceSamples: hand,
        note,
      }),
    );

  // Time from "play" to the first decoded frame: playback-info, then the direct file or HLS.
  const ttff = async (
    key: string,
    query: string,
    metric: string,
    refName: string,
    ref: () => Promise<number>,
  ) => {
    const attic: number[] = [];
    const hand: number[] = [];
    for (let i = 0; i < RUNS; i++) {
      attic.push(
        await withAttic(async (a) => {
          const start = performance.now();
          const pi = await info(a, ids[key]!, query);
          if (pi.mode === "direct") await firstFrame(`${a.url}${pi.direct_url}`);
          else {
            // What an HLS player (hls.js, Safari) needs before its first frame: the playlists and segment 0.
            // (ffmpeg as an HLS client would probe into segment 1 first, measuring its own appetite.)
            const variant = await variantOf(a, `${pi.hls_url}`);
            await (await fetch(variant)).text();
            const seg = await fetch(new URL(`seg-0.ts${variant.search}`, variant));
            if (seg.status !== 200) throw new Error(`segment 0: ${seg.status}`);
            await seg.arrayBuffer();
          }
          return (performance.now() - start) / 1000;
        }),
      );
      hand.push(await ref());
    }
    add(metric, "s", attic, hand, refName, false, `median of ${RUNS}, fresh server each`);
  };
  await ttff("mp4", "", "first frame, direct 1080p MP4", "ffmpeg reading the file", () => firstFrame(mp4));
  await ttff("mkv", "", "first segment, remux 1080p H.264 MKV", "ffmpeg reading the file", () =>
    firstFrame(mkv),
  );
  // A client that does not decode H.264 makes the same file a transcode.
  await ttff(
    "mkv",
    "?codecs=aac",
    "first segment, transcode 1080p H.264",
    "ffmpeg by hand, one 3 s segment",
    () => byHand(mkv, 0, 3),
  );
  await ttff("hevc", "", "first segment, transcode 1080p HEVC", "ffmpeg by hand, one 3 s segment", () =>
    byHand(hevc, 0, 3),
  );

  // Seek: a segment in the middle of a film nobody is playing (the conversion starts there).
  const seekAttic: number[] = [];
  const seekHand: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const n = 10 + i * 4;
    seekAttic.push(
      await withAttic(async (a) => {
        const variant = await variantOf(a, (await info(a, ids.hevc!)).hls_url);
        const seg = new URL(`seg-${n}.ts${variant.search}`, variant);
        return (await run("curl", ["-sS", "-o", "/dev/null", seg.href], { cpu: CLI_CPU })).seconds;
      }),
    );
    seekHand.push(await byHand(hevc, n * 3, 3));
  }
  add(
    "seek mid-file, transcode 1080p HEVC",
    "s",
    seekAttic,
    seekHand,
    "ffmpeg by hand, -ss + one 3 s segment",
    false,
    "segments 10–18 (30–54 s), fresh server each",
  );

  // Transcode speed: the whole film pulled through HLS, as a multiple of real time.
  for (const [key, src, label] of [
    ["hevc", hevc, "1080p"],
    ["hevc720", hevc720, "720p"],
  ] as const) {
    const pulled = await withAttic(async (a) => {
      const pi = await info(a, ids[key]!);
      const r = await run(
        "ffmpeg",
        ["-v", "error", "-i", `${a.url}${pi.hls_url}`, "-c", "copy", "-f", "null", "-"],
        {
          cpu: CLI_CPU,
          timeoutMs: 1_200_000,
        },
      );
      return r.seconds;
    });
    const hand = await byHand(src, 0, undefined);
    add(
      `transcode speed, HEVC → x264 veryfast ${label}`,
      "× real time",
      [SECONDS / pulled],
      [SECONDS / hand],
      "ffmpeg by hand, same settings",
      true,
      "ffmpeg on the server's CPU in both",
    );
  }
  rmSync(dataDir, { recursive: true, force: true });
  return figures;
}
