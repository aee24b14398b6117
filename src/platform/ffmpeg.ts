import { type ChildProcess, spawn } from "node:child_process";
import { setPriority } from "node:os";
import { createInterface } from "node:readline";
import type { Logger } from "../log.ts";
import type { HealthCheck } from "./health.ts";
import { loadOnce } from "./lazy.ts";
import { pathOfOpen, type ReadableFile } from "./open-files.ts";

/** file-type loads with the first file sniffed, not at start. */
const fileType = loadOnce(() => import("file-type"));

/** One stream of a media file, as ffprobe reports it. */
export interface MediaStream {
  /** ffprobe's stream index (what `-map 0:<index>` selects). */
  index: number;
  type: "video" | "audio" | "subtitle" | "other";
  codec: string;
  /** ISO 639 code when tagged (letters only, lower case). */
  language?: string;
  title?: string;
  channels?: number;
  width?: number;
  height?: number;
  /** Degrees a player turns the picture (a phone's display matrix); absent when upright. */
  rotation?: number;
  default: boolean;
  /** An attached picture (cover art in a music file), not a video track. */
  picture: boolean;
}

/** What ffprobe says about a media file (fields absent when unknown). */
export interface MediaInfo {
  duration_seconds?: number;
  format?: string;
  video?: { codec: string; width?: number; height?: number };
  audio?: { codec: string; channels?: number };
  /** Every stream, in file order. */
  streams: MediaStream[];
}

export interface RunResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

const MAX_OUTPUT = 4 * 1024 * 1024;

/**
 * The descriptor a child reads its input file from: the parent's opened and
 * checked file (open-files.ts), handed down as the child's fd 3. The child
 * opens it again through its own /proc/self/fd/3 (seekable, unlike `pipe:`),
 * which names that same file, never a path that could have changed since
 * it was checked.
 */
const INPUT_FD = 3;

/** The child's standard streams, plus its input file as fd 3 when it reads one. */
function stdioFor(
  out: "pipe" | "ignore",
  err: "pipe" | "ignore",
  input: ReadableFile | undefined,
): ("pipe" | "ignore" | number)[] {
  return input ? ["ignore", out, err, input.fd] : ["ignore", out, err];
}

/**
 * Runs a program with an argument array (never a shell), a timeout and an
 * optional AbortSignal; output beyond 4 MiB is cut. Rejects only when the
 * program cannot be started (ENOENT: not installed) or is stopped.
 */
export function run(
  cmd: string,
  args: string[],
  opts: { timeoutMs: number; signal?: AbortSignal; input?: ReadableFile },
): Promise<RunResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, {
      stdio: stdioFor("pipe", "pipe", opts.input),
      timeout: opts.timeoutMs,
      killSignal: "SIGKILL",
      signal: opts.signal,
    });
    let stdout = "";
    let stderr = "";
    if (!child.stdout || !child.stderr) throw new Error(`${cmd} has no output streams`);
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
  opts: { timeoutMs: number; signal?: AbortSignal; input?: ReadableFile },
): Promise<Buffer | undefined> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, {
      stdio: stdioFor("pipe", "ignore", opts.input),
      timeout: opts.timeoutMs,
      killSignal: "SIGKILL",
      signal: opts.signal,
    });
    const chunks: Buffer[] = [];
    let size = 0;
    child.stdout?.on("data", (d: Buffer) => {
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

/** The demuxer forced for an opened file, from its sniffed content; undefined when Attic will not hand it to ffmpeg. */
export async function demuxerOf(file: ReadableFile): Promise<string | undefined> {
  const { fileTypeFromFile } = await fileType();
  const type = await fileTypeFromFile(pathOfOpen(file)).catch(() => undefined);
  return type ? DEMUXERS[type.ext] : undefined;
}

/**
 * The input arguments for the one file a child is given (as its fd 3, see
 * INPUT_FD): the sniffed demuxer forced (`-f`), only the `file` protocol
 * allowed, and no host path at all: the child reads the descriptor the
 * server opened and checked, so no name is ever read as an option or another
 * protocol, nor opened again. The mov demuxer's external data references
 * stay off (its default; stated for the reader).
 */
export function inputArgs(demuxer: string): string[] {
  return [
    "-protocol_whitelist",
    "file",
    ...(demuxer === "mov" ? ["-enable_drefs", "0"] : []),
    "-f",
    demuxer,
    "-i",
    `file:/proc/self/fd/${INPUT_FD}`,
  ];
}

/**
 * ffprobe/ffmpeg behind a small wrapper: availability is detected once
 * (`-version`), on the first use or when server.ts asks shortly after
 * listening, not during start-up (forking two processes from a grown server
 * cost ~10-15 ms there); /health says "checking for ffmpeg" until then and
 * degraded (never fatal: every other feature works without them) when
 * missing. Callers ask `ready()`, which waits for the detection; `probe` reads duration, codecs and
 * resolution. Every input goes through inputArgs(): demuxer forced from the
 * sniffed content, `file` protocol only, the file an opened and checked
 * descriptor (never a path); anything else is not run at all.
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

  const detected = loadOnce(async () => {
    const [ffprobe, ffmpeg] = await Promise.all([version(cfg.ffprobe_path), version(cfg.ffmpeg_path)]);
    state = { ffprobe, ffmpeg, checked: true };
    if (!ffprobe || !ffmpeg)
      log.warn(
        { ffprobe: cfg.ffprobe_path, ffmpeg: cfg.ffmpeg_path },
        "ffmpeg missing: media probing is off",
      );
    else log.debug({ ffprobe, ffmpeg }, "media tools found");
  });
  /** Whether `tool` was found, detecting the tools first if nobody has yet. */
  const found = async (tool: "ffmpeg" | "ffprobe"): Promise<boolean> => {
    await detected();
    return Boolean(state[tool]);
  };

  return {
    /**
     * Whether ffprobe is there to probe media, detecting the tools first if
     * nobody has yet (once per server; later calls answer at once).
     */
    async ready(): Promise<boolean> {
      return found("ffprobe");
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
      file: ReadableFile,
      durationSeconds?: number,
      signal?: AbortSignal,
    ): Promise<Buffer | undefined> {
      if (!(await found("ffmpeg"))) return undefined;
      const demuxer = await demuxerOf(file);
      if (!demuxer) return undefined;
      const at = durationSeconds ? Math.min(durationSeconds * 0.1, 60) : 1;
      for (const seek of [at, 0]) {
        const args = ["-v", "error", "-ss", seek.toFixed(2), ...inputArgs(demuxer), "-frames:v", "1"];
        const out = await runBinary(cfg.ffmpeg_path, [...args, "-f", "image2pipe", "-c:v", "png", "pipe:1"], {
          timeoutMs: 20_000,
          signal,
          input: file,
        }).catch(() => undefined);
        if (out && out.length > 0) return out;
      }
      return undefined;
    },

    /**
     * Times (seconds from the start of the file) of the first video stream's
     * keyframes, read from packet flags without decoding; undefined when
     * ffprobe fails or takes longer than `timeoutMs` (a slow disk, a huge file).
     */
    async keyframes(file: ReadableFile, timeoutMs: number): Promise<number[] | undefined> {
      if (!(await found("ffprobe"))) return undefined;
      const demuxer = await demuxerOf(file);
      if (!demuxer) return undefined;
      const args = [
        "-v",
        "error",
        "-select_streams",
        "v:0",
        "-show_entries",
        "packet=pts_time,flags",
        "-of",
        "csv=p=0",
        ...inputArgs(demuxer),
      ];
      return new Promise((resolve) => {
        const child = spawn(cfg.ffprobe_path, args, {
          stdio: stdioFor("pipe", "ignore", file),
          timeout: timeoutMs,
          killSignal: "SIGKILL",
        });
        const times: number[] = [];
        if (!child.stdout) throw new Error("ffprobe has no output stream");
        createInterface({ input: child.stdout }).on("line", (line) => {
          // "12.345000,K__": only keyframes are kept (a film has ~1 per 2-10 s).
          const comma = line.indexOf(",");
          if (comma > 0 && line.charCodeAt(comma + 1) === 75 /* K */) {
            const t = Number(line.slice(0, comma));
            if (Number.isFinite(t)) times.push(t);
          }
        });
        child.on("error", () => resolve(undefined));
        child.on("close", (code, sig) =>
          resolve(code === 0 && !sig ? times.sort((a, b) => a - b) : undefined),
        );
      });
    },

    /**
     * A subtitle stream as WebVTT: stream `streamIndex` of a media file, or a
     * whole subtitle file read with `demuxer` (ASS/SSA; SubRip and WebVTT
     * sidecars are converted without ffmpeg), `windows1252` when its text
     * is not Unicode (ffmpeg reads UTF-8 and UTF-16 with a BOM by itself). Undefined
     * when ffmpeg fails (an image-based stream, a broken file).
     */
    async subtitleVtt(
      file: ReadableFile,
      source: { streamIndex: number } | { demuxer: "ass"; windows1252: boolean },
    ): Promise<Buffer | undefined> {
      if (!(await found("ffmpeg"))) return undefined;
      const demuxer = "demuxer" in source ? source.demuxer : await demuxerOf(file);
      if (!demuxer) return undefined;
      const map = "streamIndex" in source ? `0:${source.streamIndex}` : "0:s:0";
      const charset = "windows1252" in source && source.windows1252 ? ["-sub_charenc", "CP1252"] : [];
      const args = ["-v", "error", "-nostdin", ...charset, ...inputArgs(demuxer), "-map", map];
      return runBinary(cfg.ffmpeg_path, [...args, "-c:s", "webvtt", "-f", "webvtt", "pipe:1"], {
        timeoutMs: 120_000,
        input: file,
      }).catch(() => undefined);
    },

    /**
     * Starts ffmpeg with `args` (built by the caller from inputArgs() and
     * fixed option names only) reading `input`, at a lower CPU priority than
     * the server, so a conversion never starves requests; undefined without
     * ffmpeg (or before the detection: a conversion starts after its file was
     * probed). The child holds its own copy of the descriptor: the caller may
     * release `input` once this returns.
     */
    spawnFfmpeg(args: string[], cwd: string, input: ReadableFile): FfmpegProcess | undefined {
      if (!state.ffmpeg) return undefined;
      const child = spawn(cfg.ffmpeg_path, ["-v", "error", "-nostdin", ...args], {
        cwd,
        stdio: stdioFor("ignore", "pipe", input),
      });
      if (child.pid !== undefined) {
        try {
          setPriority(child.pid, 10);
        } catch {
          // Not permitted here: it runs at the server's priority.
        }
      }
      return wrapProcess(child);
    },

    /** Probes an opened file; undefined when ffprobe is missing or cannot read it. */
    async probe(file: ReadableFile, signal?: AbortSignal): Promise<MediaInfo | undefined> {
      if (!(await found("ffprobe"))) return undefined;
      const demuxer = await demuxerOf(file);
      if (!demuxer) return undefined;
      const input = inputArgs(demuxer);
      const args = ["-v", "error", "-print_format", "json", "-show_format", "-show_streams", ...input];
      const r = await run(cfg.ffprobe_path, args, { timeoutMs: 15_000, signal, input: file }).catch(
        () => undefined,
      );
      if (r?.code !== 0) return undefined;
      return parseProbe(r.stdout);
    },
  };
}

interface ProbeStream {
  index?: number;
  codec_type?: string;
  codec_name?: string;
  width?: number;
  height?: number;
  channels?: number;
  disposition?: { default?: number; attached_pic?: number };
  tags?: { language?: string; title?: string; rotate?: string };
  side_data_list?: { side_data_type?: string; rotation?: number }[];
}

/** A video stream's rotation, from its display matrix (or the older `rotate` tag), as 90, 180 or 270. */
function rotationOf(s: ProbeStream): number | undefined {
  const matrix = s.side_data_list?.find((d) => d.side_data_type === "Display Matrix")?.rotation;
  const degrees = Number(matrix ?? s.tags?.rotate ?? 0);
  if (!Number.isFinite(degrees)) return undefined;
  const turn = (((Math.round(degrees / 90) * 90) % 360) + 360) % 360;
  return turn === 0 ? undefined : turn;
}

const STREAM_TYPES = new Set(["video", "audio", "subtitle"]);

function toStream(s: ProbeStream, i: number): MediaStream {
  const type = STREAM_TYPES.has(s.codec_type ?? "") ? (s.codec_type as MediaStream["type"]) : "other";
  const lang = s.tags?.language?.toLowerCase();
  const stream: MediaStream = {
    index: Number.isInteger(s.index) ? (s.index as number) : i,
    type,
    codec: s.codec_name ?? "unknown",
    default: s.disposition?.default === 1,
    picture: s.disposition?.attached_pic === 1,
  };
  // "und" is ffmpeg's "undetermined"; anything but letters is not a language code.
  if (lang && lang !== "und" && /^[a-z]{2,3}(-[a-z0-9]{2,8})?$/.test(lang)) stream.language = lang;
  if (s.tags?.title) stream.title = s.tags.title.slice(0, 200);
  if (s.channels) stream.channels = s.channels;
  if (s.width) stream.width = s.width;
  if (s.height) stream.height = s.height;
  const rotation = type === "video" ? rotationOf(s) : undefined;
  if (rotation) stream.rotation = rotation;
  return stream;
}

/** Reads ffprobe's JSON; tolerant of missing fields. */
export function parseProbe(json: string): MediaInfo | undefined {
  let parsed: { format?: { duration?: string; format_name?: string }; streams?: ProbeStream[] };
  try {
    parsed = JSON.parse(json);
  } catch {
    return undefined;
  }
  const info: MediaInfo = { streams: (parsed.streams ?? []).map(toStream) };
  const duration = Number(parsed.format?.duration);
  if (Number.isFinite(duration) && duration >= 0) info.duration_seconds = duration;
  if (parsed.format?.format_name) info.format = parsed.format.format_name;
  const v = parsed.streams?.find((s) => s.codec_type === "video" && s.disposition?.attached_pic !== 1);
  if (v?.codec_name) info.video = { codec: v.codec_name, width: v.width, height: v.height };
  const a = parsed.streams?.find((s) => s.codec_type === "audio");
  if (a?.codec_name) info.audio = { codec: a.codec_name, channels: a.channels };
  return info;
}

export type MediaTools = ReturnType<typeof createMediaTools>;

/** A running ffmpeg that can be paused (SIGSTOP), resumed and stopped. */
export interface FfmpegProcess {
  /** Resolves with the exit code (null when stopped by a signal). */
  readonly exited: Promise<number | null>;
  /** The last ~4 KiB of ffmpeg's error output (for the log). */
  stderrTail(): string;
  pause(): void;
  resume(): void;
  stop(): void;
}

function wrapProcess(child: ChildProcess): FfmpegProcess {
  let tail = "";
  let running = true;
  child.stderr?.setEncoding("utf8").on("data", (d: string) => {
    tail = (tail + d).slice(-4096);
  });
  const exited = new Promise<number | null>((resolve) => {
    child.on("error", () => resolve(null));
    child.on("close", (code) => {
      running = false;
      resolve(code);
    });
  });
  const signal = (sig: NodeJS.Signals) => {
    if (running) child.kill(sig);
  };
  return {
    exited,
    stderrTail: () => tail,
    pause: () => signal("SIGSTOP"),
    resume: () => signal("SIGCONT"),
    stop: () => {
      // A paused process must be woken to die cleanly; SIGKILL works either way.
      signal("SIGKILL");
    },
  };
}
