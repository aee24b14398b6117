import { spawn } from "node:child_process";
import { fileTypeFromFile } from "file-type";
import type { Logger } from "../log.ts";
import type { HealthCheck } from "./health.ts";

/** What ffprobe says about a media file (fields absent when unknown). */
export interface MediaInfo {
  duration_seconds?: number;
  format?: string;
  video?: { codec: string; width?: number; height?: number };
  audio?: { codec: string; channels?: number };
}

export interface RunResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

const MAX_OUTPUT = 4 * 1024 * 1024;

/**
 * Runs a program with an argument array (never a shell), a timeout and an
 * optional AbortSignal; output beyond 4 MiB is cut. Rejects only when the
 * program cannot be started (ENOENT: not installed) or is stopped.
 */
export function run(
  cmd: string,
  args: string[],
  opts: { timeoutMs: number; signal?: AbortSignal },
): Promise<RunResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, {
      stdio: ["ignore", "pipe", "pipe"],
      timeout: opts.timeoutMs,
      killSignal: "SIGKILL",
      signal: opts.signal,
    });
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (d: string) => {
      if (stdout.length < MAX_OUTPUT) stdout += d;
    });
    child.stderr.setEncoding("utf8").on("data", (d: string) => {
      if (stderr.length < MAX_OUTPUT) stderr += d;
    });
    child.on("error", reject);
    child.on("close", (code, sig) => {
      if (sig) reject(Object.assign(new Error(`${cmd} stopped by ${sig}`), { code: "ETIMEDOUT" }));
      else resolve({ code, stdout, stderr });
    });
  });
}

/** Runs a program like `run` and returns its standard output as bytes (at most 32 MiB), or undefined on failure. */
export function runBinary(
  cmd: string,
  args: string[],
  opts: { timeoutMs: number; signal?: AbortSignal },
): Promise<Buffer | undefined> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, {
      stdio: ["ignore", "pipe", "ignore"],
      timeout: opts.timeoutMs,
      killSignal: "SIGKILL",
      signal: opts.signal,
    });
    const chunks: Buffer[] = [];
    let size = 0;
    child.stdout.on("data", (d: Buffer) => {
      size += d.length;
      if (size <= 32 * 1024 * 1024) chunks.push(d);
    });
    child.on("error", reject);
    child.on("close", (code) =>
      resolve(code === 0 && size <= 32 * 1024 * 1024 ? Buffer.concat(chunks) : undefined),
    );
  });
}

/**
 * The ffmpeg demuxer for each container Attic hands to ffmpeg, by the
 * extension file-type sniffs from the content (never the file's name).
 * Nothing else is ever opened: playlists (HLS, DASH), concat lists, SDP and
 * other formats that name further inputs are absent, so a file claiming to be
 * `.mp4` that is really an `#EXTM3U` playlist pointing at a host path is
 * refused instead of read.
 */
const DEMUXERS: Record<string, string> = {
  mp4: "mov",
  m4v: "mov",
  m4a: "mov",
  m4b: "mov",
  mov: "mov",
  "3gp": "mov",
  "3g2": "mov",
  mkv: "matroska",
  webm: "matroska",
  mka: "matroska",
  avi: "avi",
  flv: "flv",
  mpg: "mpeg",
  mts: "mpegts",
  ts: "mpegts",
  asf: "asf",
  wmv: "asf",
  wma: "asf",
  mp3: "mp3",
  flac: "flac",
  ogg: "ogg",
  oga: "ogg",
  ogv: "ogg",
  opus: "ogg",
  wav: "wav",
  aac: "aac",
  ac3: "ac3",
  aiff: "aiff",
};

/** The demuxer forced for a file, from its sniffed content; undefined when Attic will not hand it to ffmpeg. */
export async function demuxerOf(absPath: string): Promise<string | undefined> {
  const type = await fileTypeFromFile(absPath).catch(() => undefined);
  return type ? DEMUXERS[type.ext] : undefined;
}

/**
 * The input arguments for one file: the sniffed demuxer forced (`-f`), only
 * the `file` protocol allowed, and the path as a `file:` URL so a name can
 * never be read as an option or another protocol. The mov demuxer's
 * external data references stay off (its default; stated for the reader).
 */
export function inputArgs(absPath: string, demuxer: string): string[] {
  return [
    "-protocol_whitelist",
    "file",
    ...(demuxer === "mov" ? ["-enable_drefs", "0"] : []),
    "-f",
    demuxer,
    "-i",
    `file:${absPath}`,
  ];
}

/**
 * ffprobe/ffmpeg behind a small wrapper: availability is detected once at
 * start (`-version`) and reported to /health (degraded, never fatal: every
 * other feature works without them); `probe` reads duration, codecs and
 * resolution. Every input goes through inputArgs(): demuxer forced from the
 * sniffed content, `file` protocol only; anything else is not run at all.
 */
export function createMediaTools(cfg: { ffmpeg_path: string; ffprobe_path: string }, log: Logger) {
  let state: { ffprobe?: string; ffmpeg?: string; checked: boolean } = { checked: false };

  const version = async (cmd: string): Promise<string | undefined> => {
    try {
      const r = await run(cmd, ["-hide_banner", "-version"], { timeoutMs: 5000 });
      return r.code === 0 ? (/version (\S+)/.exec(r.stdout)?.[1] ?? "unknown") : undefined;
    } catch {
      return undefined;
    }
  };

  return {
    /** Detects the tools (server start); safe to call again. */
    async detect(): Promise<void> {
      const [ffprobe, ffmpeg] = await Promise.all([version(cfg.ffprobe_path), version(cfg.ffmpeg_path)]);
      state = { ffprobe, ffmpeg, checked: true };
      if (!ffprobe || !ffmpeg)
        log.warn(
          { ffprobe: cfg.ffprobe_path, ffmpeg: cfg.ffmpeg_path },
          "ffmpeg missing: media probing is off",
        );
      else log.debug({ ffprobe, ffmpeg }, "media tools found");
    },

    get available(): boolean {
      return Boolean(state.ffprobe);
    },

    health(): HealthCheck {
      if (!state.checked) return { status: "ok", message: "checking for ffmpeg" };
      if (state.ffprobe && state.ffmpeg)
        return { status: "ok", ffprobe: state.ffprobe, ffmpeg: state.ffmpeg };
      return {
        status: "degraded",
        message: "ffmpeg missing: media probing is off",
        ffprobe: state.ffprobe ?? null,
        ffmpeg: state.ffmpeg ?? null,
      };
    },

    /**
     * One video frame as PNG bytes (a poster for thumbnails): at 10% of
     * `durationSeconds` when known, else at 1 s, falling back to the first frame.
     */
    async posterFrame(
      absPath: string,
      durationSeconds?: number,
      signal?: AbortSignal,
    ): Promise<Buffer | undefined> {
      if (!state.ffmpeg) return undefined;
      const demuxer = await demuxerOf(absPath);
      if (!demuxer) return undefined;
      const at = durationSeconds ? Math.min(durationSeconds * 0.1, 60) : 1;
      for (const seek of [at, 0]) {
        const args = [
          "-v",
          "error",
          "-ss",
          seek.toFixed(2),
          ...inputArgs(absPath, demuxer),
          "-frames:v",
          "1",
        ];
        const out = await runBinary(cfg.ffmpeg_path, [...args, "-f", "image2pipe", "-c:v", "png", "pipe:1"], {
          timeoutMs: 20_000,
          signal,
        }).catch(() => undefined);
        if (out && out.length > 0) return out;
      }
      return undefined;
    },

    /** Probes a host file; undefined when ffprobe is missing or cannot read it. */
    async probe(absPath: string, signal?: AbortSignal): Promise<MediaInfo | undefined> {
      if (!state.ffprobe) return undefined;
      const demuxer = await demuxerOf(absPath);
      if (!demuxer) return undefined;
      const input = inputArgs(absPath, demuxer);
      const args = ["-v", "error", "-print_format", "json", "-show_format", "-show_streams", ...input];
      const r = await run(cfg.ffprobe_path, args, { timeoutMs: 15_000, signal }).catch(() => undefined);
      if (r?.code !== 0) return undefined;
      return parseProbe(r.stdout);
    },
  };
}

interface ProbeStream {
  codec_type?: string;
  codec_name?: string;
  width?: number;
  height?: number;
  channels?: number;
}

/** Reads ffprobe's JSON; tolerant of missing fields. */
export function parseProbe(json: string): MediaInfo | undefined {
  let parsed: { format?: { duration?: string; format_name?: string }; streams?: ProbeStream[] };
  try {
    parsed = JSON.parse(json);
  } catch {
    return undefined;
  }
  const info: MediaInfo = {};
  const duration = Number(parsed.format?.duration);
  if (Number.isFinite(duration) && duration >= 0) info.duration_seconds = duration;
  if (parsed.format?.format_name) info.format = parsed.format.format_name;
  const v = parsed.streams?.find((s) => s.codec_type === "video");
  if (v?.codec_name) info.video = { codec: v.codec_name, width: v.width, height: v.height };
  const a = parsed.streams?.find((s) => s.codec_type === "audio");
  if (a?.codec_name) info.audio = { codec: a.codec_name, channels: a.channels };
  return info;
}

export type MediaTools = ReturnType<typeof createMediaTools>;
