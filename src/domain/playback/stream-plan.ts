import type { MediaInfo, MediaStream } from "../../platform/ffmpeg.ts";
import { inputArgs } from "../../platform/ffmpeg.ts";
import { STREAMABLE } from "../files/mime.ts";

/**
 * How a file reaches a player, decided from what ffprobe found and what the
 * client says it decodes. Pure functions: no processes, no files.
 *
 * - direct: the file as it is (byte ranges); the container and every chosen
 *   stream are playable by the client.
 * - remux: the video is copied as it is into HLS (MPEG-TS segments cut at
 *   its keyframes); the audio is copied or converted to AAC.
 * - transcode: the video is encoded to H.264 (and the audio to AAC) into
 *   HLS segments of SEGMENT_SECONDS, each starting with a forced keyframe.
 *
 * Audio-only files that cannot be played as they are become AAC in HLS
 * (transcode), or have their MP3/AAC copied into it (remux).
 */

/** Seconds per segment: short, so a seek or a first play waits for little conversion. */
export const SEGMENT_SECONDS = 3;

/**
 * What a browser decodes without help: the default of `codecs=`. PCM is what
 * WAV holds (Chrome, Firefox and Safari play 16- and 24-bit WAV as it is).
 */
export const BROWSER_CODECS = [
  "h264",
  "vp8",
  "vp9",
  "av1",
  "aac",
  "mp3",
  "opus",
  "vorbis",
  "flac",
  "pcm_s16le",
  "pcm_s24le",
] as const;

/** Codecs a client may name in `codecs=` (anything else is refused at the boundary). */
export const KNOWN_CODECS = [
  ...BROWSER_CODECS,
  "hevc",
  "mpeg4",
  "mpeg2video",
  "ac3",
  "eac3",
  "dts",
  "truehd",
  "alac",
] as const;

/** Containers a media element plays as they are (by stored media type). */
const DIRECT_TYPES = new Set([...STREAMABLE, "audio/flac", "audio/x-flac", "audio/webm"]);

/** Audio codecs that can be copied into MPEG-TS for an HLS player. */
const TS_AUDIO = new Set(["aac", "mp3"]);

export type Mode = "direct" | "remux" | "transcode";

export interface StreamPlan {
  mode: Mode;
  /** The video stream used (ffprobe index), and what happens to it. */
  video?: { index: number; action: "copy" | "h264" };
  /** The audio stream used (ffprobe index), and what happens to it. */
  audio?: { index: number; action: "copy" | "aac"; language?: string };
}

/** The first real video stream (not cover art). */
export function videoStream(info: MediaInfo): MediaStream | undefined {
  return info.streams.find((s) => s.type === "video" && !s.picture);
}

export function audioStreams(info: MediaInfo): MediaStream[] {
  return info.streams.filter((s) => s.type === "audio");
}

/** The audio stream played when none is chosen: the one marked default, else the first. */
export function defaultAudio(info: MediaInfo): MediaStream | undefined {
  const audio = audioStreams(info);
  return audio.find((s) => s.default) ?? audio[0];
}

/**
 * The plan for `info` (a file stored as `mimeType`) on a client decoding
 * `codecs`, playing audio stream `audioIndex` (default: the default one).
 * Choosing another audio stream than the first needs HLS: a media element
 * cannot switch tracks of a plain file.
 */
export function decide(
  info: MediaInfo,
  mimeType: string,
  codecs: readonly string[],
  audioIndex?: number,
): StreamPlan {
  const plays = new Set(codecs);
  const video = videoStream(info);
  const audio =
    audioIndex === undefined ? defaultAudio(info) : audioStreams(info).find((s) => s.index === audioIndex);
  const firstAudio = audioStreams(info)[0];
  const videoOk = !video || plays.has(video.codec);
  const audioOk = !audio || plays.has(audio.codec);
  const direct =
    DIRECT_TYPES.has(mimeType) && videoOk && audioOk && (!audio || audio.index === firstAudio?.index);
  const audioPlan = audio && {
    index: audio.index,
    action: (TS_AUDIO.has(audio.codec) && audioOk ? "copy" : "aac") as "copy" | "aac",
    ...(audio.language ? { language: audio.language } : {}),
  };
  if (direct) {
    return {
      mode: "direct",
      ...(video ? { video: { index: video.index, action: "copy" } } : {}),
      ...(audioPlan ? { audio: { ...audioPlan, action: "copy" } } : {}),
    };
  }
  // Video copied only when it is H.264: the one codec every HLS player takes in MPEG-TS. MPEG-TS
  // cannot carry a rotation (a phone's portrait video): converting turns the picture upright.
  const copyVideo = video && videoOk && video.codec === "h264" && !video.rotation;
  // Nothing re-encoded but the audio of a video: remux; audio-only files converted to AAC: transcode.
  const mode: Mode = video
    ? copyVideo
      ? "remux"
      : "transcode"
    : audioPlan?.action === "copy"
      ? "remux"
      : "transcode";
  return {
    mode,
    ...(video ? { video: { index: video.index, action: copyVideo ? "copy" : "h264" } } : {}),
    ...(audioPlan ? { audio: audioPlan } : {}),
  };
}

/** A stable name for a plan: the key of its conversion and of its segments. */
export function planKey(plan: StreamPlan): string {
  const v = plan.video ? `v${plan.video.index}${plan.video.action}` : "nov";
  const a = plan.audio ? `a${plan.audio.index}${plan.audio.action}` : "noa";
  return `${v}-${a}`;
}

/** Segment start times (seconds); a segment ends where the next starts, the last at `duration`. */
export interface Layout {
  starts: number[];
  duration: number;
}

/** Segments of SEGMENT_SECONDS (the last one shorter): for conversions that place keyframes themselves. */
export function gridLayout(duration: number): Layout {
  const n = Math.max(1, Math.ceil(duration / SEGMENT_SECONDS - 1e-6));
  return { starts: Array.from({ length: n }, (_, i) => i * SEGMENT_SECONDS), duration };
}

/**
 * Segments cut at the source's keyframes, each at least SEGMENT_SECONDS
 * long (the last may be shorter): for a copied video, which can only be cut
 * where a keyframe is.
 */
export function keyframeLayout(keyframes: readonly number[], duration: number): Layout {
  const starts = [0];
  for (const k of keyframes) {
    if (k - (starts.at(-1) as number) >= SEGMENT_SECONDS && duration - k >= 0.5) starts.push(k);
  }
  return { starts, duration };
}

export const segmentEnd = (layout: Layout, n: number): number => layout.starts[n + 1] ?? layout.duration;

/** Hardware encoders `media.hwaccel` may name, and the ffmpeg options each needs. */
export type HwAccel = "none" | "vaapi" | "qsv" | "nvenc";

function videoEncoder(hw: HwAccel, height: number | undefined): string[] {
  // Never more than 1080 lines: bigger frames cost far more and a NAS's clients rarely need them.
  const scaleTo = height && height > 1080 ? 1080 : undefined;
  // H.264 in 4:2:0 needs an even width and height: an odd one (an old camcorder's 321x241) loses its last
  // column or row (a crop: nothing resampled; a no-op for even sizes).
  const size = ["-vf", scaleTo ? `scale=-2:${scaleTo}` : "crop=trunc(iw/2)*2:trunc(ih/2)*2"];
  switch (hw) {
    case "vaapi":
      return [
        "-vf",
        `format=nv12,hwupload${scaleTo ? `,scale_vaapi=w=-2:h=${scaleTo}` : ""}`,
        "-c:v",
        "h264_vaapi",
        "-qp",
        "23",
      ];
    case "qsv":
      return [...size, "-c:v", "h264_qsv", "-preset", "veryfast", "-global_quality", "23"];
    case "nvenc":
      return [...size, "-c:v", "h264_nvenc", "-preset", "p4", "-cq", "23"];
    default:
      return [
        ...size,
        "-c:v",
        "libx264",
        "-preset",
        "veryfast",
        "-crf",
        "23",
        "-maxrate",
        "10M",
        "-bufsize",
        "20M",
        "-profile:v",
        "high",
        "-pix_fmt",
        "yuv420p",
      ];
  }
}

/** Options that must precede the input for a hardware encoder (the device). */
function hwInput(hw: HwAccel): string[] {
  return hw === "vaapi" ? ["-vaapi_device", "/dev/dri/renderD128"] : [];
}

const seconds = (t: number): string => t.toFixed(3);

/**
 * ffmpeg arguments that write segments `from`.. of `plan` into the working
 * directory as `seg-<n>.ts`, listing each finished one in `listFile`.
 * Timestamps stay the source's (`-copyts`, plus MPEG-TS's constant mux
 * delay), so every run, whatever segment it starts at, produces segments on
 * one timeline that lines up with the playlist and with positions in the
 * source file. (Without the mux delay, B-frames give the first packets
 * timestamps Chrome's Media Source rejects as out of order.) Every value here is a number or a fixed
 * option; the file enters only through inputArgs().
 */
export function segmentArgs(opts: {
  plan: StreamPlan;
  layout: Layout;
  from: number;
  demuxer: string;
  listFile: string;
  hwaccel: HwAccel;
  height?: number;
}): string[] {
  const { plan, layout, from } = opts;
  const start = layout.starts[from] ?? 0;
  const cuts = layout.starts.slice(from + 1);
  const copyVideo = plan.video?.action === "copy";
  const args = [...(plan.video?.action === "h264" ? hwInput(opts.hwaccel) : []), "-copyts", "-start_at_zero"];
  // A copied video can only start at a keyframe: seek just past it so the demuxer lands on it.
  if (start > 0) args.push("-ss", seconds(copyVideo ? start + 0.001 : start));
  args.push(...inputArgs(opts.demuxer));
  if (plan.video) args.push("-map", `0:${plan.video.index}`);
  else args.push("-vn");
  if (plan.audio) args.push("-map", `0:${plan.audio.index}`);
  else args.push("-an");
  if (plan.video?.action === "h264") {
    args.push(...videoEncoder(opts.hwaccel, opts.height));
    // A keyframe where every segment starts, so each cut lands exactly on the playlist's times.
    args.push("-force_key_frames", [start, ...cuts].map(seconds).join(","));
  } else if (plan.video) {
    args.push("-c:v", "copy");
  }
  if (plan.audio?.action === "aac") args.push("-c:a", "aac", "-ac", "2", "-b:a", "192k");
  else if (plan.audio) args.push("-c:a", "copy");
  if (plan.audio?.language) args.push("-metadata:s:a:0", `language=${plan.audio.language}`);
  args.push("-sn", "-dn", "-map_metadata", "-1", "-map_chapters", "-1");
  args.push("-max_muxing_queue_size", "4096");
  args.push("-f", "segment", "-segment_format", "mpegts");
  if (cuts.length > 0) args.push("-segment_times", cuts.map(seconds).join(","));
  // Keyframe times are printed rounded: a cut a hair early still lands on its keyframe.
  if (copyVideo) args.push("-segment_time_delta", "0.05");
  args.push("-segment_start_number", String(from), "-segment_list", opts.listFile);
  args.push("-segment_list_type", "csv", "seg-%d.ts");
  return args;
}
