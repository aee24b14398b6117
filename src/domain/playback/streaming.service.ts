import { createHash } from "node:crypto";
import type { Db } from "../../db/client.ts";
import { AppError, notFound } from "../../errors.ts";
import type { DiskCache } from "../../platform/disk-cache.ts";
import type { MediaInfo, MediaTools } from "../../platform/ffmpeg.ts";
import { createJobQueue } from "../../platform/job-queue.ts";
import { readUpTo } from "../../platform/local-files.ts";
import { type MusicTags, readMusicTags } from "../../platform/music.ts";
import { type Access, LEVEL } from "../access/access.ts";
import type { Actor } from "../actor.ts";
import { type OpenedContent, withOpened } from "../files/content.ts";
import { STREAMABLE } from "../files/mime.ts";
import { parseInput } from "../parse-input.ts";
import type { Conversions } from "./conversions.ts";
import type { MediaService } from "./media.service.ts";
import { createPlaybackRepo, type FileRow } from "./playback.repo.ts";
import { type PlaybackInfoDto, PlaybackQuery, type PlaybackQueryInput } from "./playback.schemas.ts";
import {
  audioStreams,
  BROWSER_CODECS,
  decide,
  gridLayout,
  keyframeLayout,
  type Layout,
  planKey,
  SEGMENT_SECONDS,
  type StreamPlan,
  segmentEnd,
  videoStream,
} from "./stream-plan.ts";
import {
  asVtt,
  decodeSubtitle,
  isUnicodeSubtitle,
  SIDECAR_BASE,
  type SidecarFormat,
  sidecarOf,
  srtToVtt,
  stemOf,
  TEXT_SUBTITLE_CODECS,
} from "./subtitles.ts";

/** Longest keyframe scan of a file before giving up copying its video (it is transcoded instead). */
const KEYFRAME_SCAN_MS = 10_000;
/** Largest sidecar subtitle read. */
const MAX_SUBTITLE_BYTES = 8 * 1024 * 1024;
const LAYOUT_CACHE_MAX = 500;

interface Sidecar {
  index: number;
  row: FileRow;
  format: SidecarFormat;
  language?: string;
  label?: string;
}

/**
 * Playback of any audio or video file: what plays it (playback-info), HLS
 * playlists and segments for files the client cannot play as they are
 * (remux or transcode through `conversions`), subtitles as WebVTT (embedded
 * text streams and sidecar files next to the video), music tags.
 *
 * Every entry point opens the file through the files service, so it obeys
 * the organization and folder grants like a download; sidecars are checked
 * the same way. One service for REST and RPC.
 */
export function createStreamingService(deps: {
  db: Db;
  access: Access;
  openPlayable: (actor: Actor, id: string) => Promise<OpenedContent>;
  openContent: (actor: Actor, id: string) => Promise<OpenedContent>;
  media: MediaService;
  tools: MediaTools;
  conversions: Conversions;
  subtitleCache: DiskCache;
  /** A stream token for the file, for callers who came with a header (its URLs must work without one). */
  issueToken: (actor: Actor, id: string) => Promise<{ token: string }>;
}) {
  const repo = createPlaybackRepo(deps.db);
  /** Keyframe layouts per file version; null: the scan failed, the version is transcoded. */
  const layouts = new Map<string, Layout | null>();
  const scans = createJobQueue({ concurrency: 1, failureTtlMs: 60_000 });
  const subtitleJobs = createJobQueue({ concurrency: 2, failureTtlMs: 60_000 });

  const query = (input: unknown): PlaybackQueryInput => parseInput(PlaybackQuery, input ?? {});

  /**
   * The plan for a request and its segments. A copied video is cut at its
   * keyframes, scanned once per file version within KEYFRAME_SCAN_MS; when
   * the scan fails or takes longer (a huge file on a slow disk), that version
   * is transcoded instead, for as long as the server runs, so every playlist
   * and segment of a session agree on one layout.
   */
  async function planOf(
    content: OpenedContent,
    info: MediaInfo,
    q: PlaybackQueryInput,
    hls = false,
  ): Promise<{ plan: StreamPlan; layout?: Layout }> {
    if (q.audio !== undefined && !audioStreams(info).some((s) => s.index === q.audio)) {
      throw new AppError("VALIDATION", `the file has no audio stream ${q.audio}`);
    }
    // HLS of a file that would play directly (an outside player given hls_url): as if its container were not playable.
    const plan = decide(info, hls ? "" : content.row.mime_type, q.codecs ?? BROWSER_CODECS, q.audio);
    const duration = info.duration_seconds;
    if (plan.mode === "direct" || !duration) return { plan };
    if (plan.video?.action !== "copy") return { plan, layout: gridLayout(duration) };
    const layout = await keyframeLayoutOf(content, duration);
    if (layout) return { plan, layout };
    return {
      plan: { ...plan, mode: "transcode", video: { index: plan.video.index, action: "h264" } },
      layout: gridLayout(duration),
    };
  }

  async function keyframeLayoutOf(content: OpenedContent, duration: number): Promise<Layout | undefined> {
    const key = `${content.row.id}:${content.etag}`;
    if (layouts.has(key)) return layouts.get(key) ?? undefined;
    const keyframes = await scans.run(key, () =>
      withOpened(content, (file) => deps.tools.keyframes(file, KEYFRAME_SCAN_MS)),
    );
    const layout = keyframes && keyframes.length > 0 ? keyframeLayout(keyframes, duration) : null;
    if (layouts.size >= LAYOUT_CACHE_MAX) layouts.delete(layouts.keys().next().value as string);
    layouts.set(key, layout);
    return layout ?? undefined;
  }

  /** The layout of a converted plan (a file whose duration is unknown cannot be cut into segments). */
  function segmentsOf(r: { layout?: Layout }): Layout {
    if (!r.layout) throw new AppError("VALIDATION", "the file's duration is unknown: it cannot be converted");
    return r.layout;
  }

  async function opened(actor: Actor, id: string, input: unknown) {
    const q = query(input);
    const content = await deps.openPlayable(actor, id);
    const info = await deps.media.probe(content);
    return { q, content, info };
  }

  /** The token the caller came with (a stream token of this file), or a new one. */
  async function tokenFor(actor: Actor, content: OpenedContent, given: string | undefined): Promise<string> {
    return given ?? (await deps.issueToken(actor, content.row.id)).token;
  }

  /** Query string of the URLs a playlist hands on: same audio, codecs and token. */
  function carry(q: PlaybackQueryInput, token: string | undefined): string {
    const p = new URLSearchParams();
    if (q.audio !== undefined) p.set("audio", String(q.audio));
    if (q.codecs) p.set("codecs", q.codecs.join(","));
    if (token) p.set("st", token);
    const s = p.toString();
    return s ? `?${s}` : "";
  }

  function sidecars(actor: Actor, row: FileRow): Sidecar[] {
    const stem = stemOf(row.name);
    const found: Sidecar[] = [];
    for (const sib of repo.siblingsStartingWith(row, `${stem}.`)) {
      const kind = sidecarOf(stem, sib.name);
      if (!kind || deps.access.levelOf(actor, sib) < LEVEL.read) continue;
      found.push({ index: SIDECAR_BASE + found.length, row: sib, ...kind });
    }
    return found;
  }

  async function tagsOf(content: OpenedContent, info: MediaInfo | undefined): Promise<MusicTags | undefined> {
    const isAudio = content.row.mime_type.startsWith("audio/") || (info && !videoStream(info));
    return isAudio ? withOpened(content, readMusicTags) : undefined;
  }

  return {
    /**
     * How `id` plays on the client described by `input` (`codecs`, `audio`):
     * the mode, the streams, the subtitles, and the URLs to play it, each
     * carrying a stream token (the one the caller presented, else a new one)
     * so players that cannot send headers can use them. Without ffmpeg, or for a file ffprobe cannot read:
     * direct, with the reason (the browser may still play it).
     */
    async info(actor: Actor, id: string, input: unknown, given?: string): Promise<PlaybackInfoDto> {
      const q = query(input);
      const content = await deps.openPlayable(actor, id);
      const token = await tokenFor(actor, content, given);
      const base = `/api/v1/files/${content.row.id}`;
      const st = `?st=${encodeURIComponent(token)}`;
      const directUrl = `${base}/${STREAMABLE.has(content.row.mime_type) ? "stream" : "download"}${st}`;
      const side = sidecars(actor, content.row).map((s) => ({
        index: s.index,
        ...(s.language ? { language: s.language } : {}),
        ...(s.label ? { title: s.label } : {}),
        format: s.format === "webvtt" ? "webvtt" : s.format === "srt" ? "subrip" : "ass",
        source: "sidecar" as const,
        url: `${base}/subtitles/${s.index}.vtt${st}`,
      }));
      const available = await deps.tools.ready();
      const probed = available
        ? await deps.media.probe(content).catch((err: unknown) => {
            if (err instanceof AppError && err.code === "VALIDATION") return undefined;
            throw err;
          })
        : undefined;
      if (!probed) {
        const tags = await tagsOf(content, undefined);
        return {
          mode: "direct",
          duration: null,
          container: null,
          video: null,
          audio: [],
          // Without ffmpeg only sidecars that need no conversion are offered.
          subtitles: available ? side : side.filter((s) => s.format !== "ass"),
          direct_url: directUrl,
          hls_url: null,
          ...(tags ? { tags } : {}),
          reason: available
            ? "the server could not read this file as audio or video"
            : "ffmpeg is not installed on the server: files this browser cannot play as they are cannot be converted",
        };
      }
      const info = probed;
      const { plan } = await planOf(content, info, q);
      const video = videoStream(info);
      const tags = await tagsOf(content, info);
      const embedded = info.streams
        .filter((s) => s.type === "subtitle" && TEXT_SUBTITLE_CODECS.has(s.codec))
        .map((s) => ({
          index: s.index,
          ...(s.language ? { language: s.language } : {}),
          ...(s.title ? { title: s.title } : {}),
          format: s.codec,
          source: "embedded" as const,
          url: `${base}/subtitles/${s.index}.vtt${st}`,
        }));
      return {
        mode: plan.mode,
        duration: info.duration_seconds ?? null,
        container: info.format ?? null,
        video: video
          ? { codec: video.codec, width: video.width ?? null, height: video.height ?? null }
          : null,
        audio: audioStreams(info).map((s) => ({
          index: s.index,
          codec: s.codec,
          ...(s.language ? { language: s.language } : {}),
          ...(s.title ? { title: s.title } : {}),
          channels: s.channels ?? null,
          default: s.default,
          selected: s.index === plan.audio?.index,
        })),
        subtitles: [...embedded, ...side],
        // Without a duration nothing can be cut into segments: the file as it is, and why.
        ...(plan.mode === "direct" || !info.duration_seconds ? { direct_url: directUrl } : {}),
        hls_url: info.duration_seconds ? `${base}/hls/master.m3u8${carry(q, token)}` : null,
        ...(plan.mode !== "direct" && !info.duration_seconds
          ? { reason: "the file's duration is unknown, so it cannot be converted for this browser" }
          : {}),
        ...(tags ? { tags } : {}),
      };
    },

    /** The HLS master playlist: one variant (the plan's codecs and resolution). */
    async master(actor: Actor, id: string, input: unknown, given?: string): Promise<string> {
      const { q, content, info } = await opened(actor, id, input);
      const token = await tokenFor(actor, content, given);
      const planned = await planOf(content, info, q, true);
      segmentsOf(planned);
      const { plan } = planned;
      const video = videoStream(info);
      const copiedMp3 =
        plan.audio?.action === "copy" &&
        audioStreams(info).find((s) => s.index === plan.audio?.index)?.codec === "mp3";
      const codecs: string[] = [];
      // RFC 6381 names: H.264 High (what a conversion makes), AAC-LC or MP3.
      if (plan.video) codecs.push("avc1.640028");
      if (plan.audio) codecs.push(copiedMp3 ? "mp4a.40.34" : "mp4a.40.2");
      const height =
        video?.height && video.height > 1080 && plan.video?.action === "h264" ? 1080 : video?.height;
      const width =
        video?.width && video.height && height
          ? Math.round((video.width * height) / video.height / 2) * 2
          : undefined;
      const bandwidth = plan.video ? 8_000_000 : 256_000;
      const attrs = [`BANDWIDTH=${bandwidth}`, `CODECS="${codecs.join(",")}"`];
      // A conversion turns a rotated picture upright (ffmpeg's autorotate): a quarter turn swaps the sides.
      const turned = plan.video?.action === "h264" && (video?.rotation === 90 || video?.rotation === 270);
      if (width && height) attrs.push(`RESOLUTION=${turned ? `${height}x${width}` : `${width}x${height}`}`);
      return [
        "#EXTM3U",
        "#EXT-X-VERSION:3",
        `#EXT-X-STREAM-INF:${attrs.join(",")}`,
        // The token as a path segment: the media playlist's segment URLs are then relative and short.
        `t/${encodeURIComponent(token)}/index.m3u8${carry(q, undefined)}`,
        "",
      ].join("\n");
    },

    /** The media playlist: every segment of the file, as a finished (VOD) list. */
    async variant(actor: Actor, id: string, input: unknown): Promise<string> {
      const { q, content, info } = await opened(actor, id, input);
      const layout = segmentsOf(await planOf(content, info, q, true));
      const durations = layout.starts.map((s, n) => segmentEnd(layout, n) - s);
      const lines = [
        "#EXTM3U",
        "#EXT-X-VERSION:3",
        `#EXT-X-TARGETDURATION:${Math.ceil(Math.max(SEGMENT_SECONDS, ...durations))}`,
        "#EXT-X-MEDIA-SEQUENCE:0",
        "#EXT-X-PLAYLIST-TYPE:VOD",
      ];
      const tail = carry(q, undefined);
      durations.forEach((d, n) => {
        lines.push(`#EXTINF:${d.toFixed(6)},`, `seg-${n}.ts${tail}`);
      });
      lines.push("#EXT-X-ENDLIST", "");
      return lines.join("\n");
    },

    /**
     * Segment `segment` ("seg-<n>.ts") of the file's conversion for the player
     * holding stream token `token` (its session): the path of a finished MPEG-TS file.
     */
    async segment(actor: Actor, id: string, segment: string, input: unknown, token: string): Promise<string> {
      const n = Number(/^seg-(\d+)\.ts$/.exec(segment)?.[1] ?? Number.NaN);
      const { q, content, info } = await opened(actor, id, input);
      const planned = await planOf(content, info, q, true);
      const layout = segmentsOf(planned);
      const { plan } = planned;
      if (!Number.isInteger(n) || n >= layout.starts.length) throw notFound("segment");
      return deps.conversions.segment(
        {
          fileId: content.row.id,
          etag: content.etag,
          // Not the token itself: it is a credential, and the key only needs to tell sessions apart.
          session: createHash("sha256").update(token).digest("hex").slice(0, 32),
          owner: actor.userId,
          plan,
          planKey: planKey(plan),
          layout,
          open: content.open,
          height: videoStream(info)?.height,
        },
        n,
      );
    },

    /** Subtitle `track` ("<index>.vtt") as WebVTT text: an embedded text stream or a sidecar file. */
    async subtitle(actor: Actor, id: string, track: string): Promise<string> {
      const index = Number(/^(\d+)\.vtt$/.exec(track)?.[1] ?? Number.NaN);
      const content = await deps.openPlayable(actor, id);
      if (index >= SIDECAR_BASE) {
        const side = sidecars(actor, content.row).find((s) => s.index === index);
        if (!side) throw notFound("subtitle");
        const file = await deps.openContent(actor, side.row.id);
        if (file.size > MAX_SUBTITLE_BYTES)
          throw new AppError("PAYLOAD_TOO_LARGE", "the subtitle file is too large");
        const bytes = await withOpened(file, (f) => readUpTo(f, MAX_SUBTITLE_BYTES));
        if (bytes.length > MAX_SUBTITLE_BYTES)
          throw new AppError("PAYLOAD_TOO_LARGE", "the subtitle file is too large");
        if (side.format === "ass") {
          // ffmpeg refuses text that is not UTF-8 unless told its encoding (old .ass/.ssa files are often Windows-1252).
          const source = { demuxer: "ass" as const, windows1252: !isUnicodeSubtitle(bytes) };
          return convertCached(file, source, "ass");
        }
        const text = decodeSubtitle(bytes);
        if (side.format === "srt") return srtToVtt(text);
        const vtt = asVtt(text);
        if (!vtt) throw new AppError("VALIDATION", "the .vtt file is not WebVTT");
        return vtt;
      }
      // Without ffmpeg the probe answers 503 (embedded subtitles need it).
      const info = await deps.media.probe(content);
      const stream = info.streams.find((s) => s.index === index && s.type === "subtitle");
      if (!stream) throw notFound("subtitle");
      if (!TEXT_SUBTITLE_CODECS.has(stream.codec)) {
        throw new AppError("VALIDATION", `${stream.codec} subtitles are pictures and cannot become WebVTT`);
      }
      return convertCached(content, { streamIndex: index }, String(index));
    },
  };

  /** ffmpeg's WebVTT of a subtitle source, cached on disk per file version (extracting reads the whole file). */
  async function convertCached(
    content: OpenedContent,
    source: { streamIndex: number } | { demuxer: "ass"; windows1252: boolean },
    what: string,
  ): Promise<string> {
    if (!(await deps.tools.ready()))
      throw new AppError("UNAVAILABLE", "this subtitle format needs ffmpeg, which is missing");
    const key = createHash("sha256").update(`${content.row.id}\0${content.etag}\0${what}`).digest("hex");
    const cached = await deps.subtitleCache.get(key);
    if (cached) return cached.toString("utf8");
    const vtt = await subtitleJobs.run(key, async () => {
      const out = await withOpened(content, (file) => deps.tools.subtitleVtt(file, source));
      if (!out) throw new AppError("VALIDATION", "the subtitles could not be read");
      await deps.subtitleCache.put(key, out);
      return out;
    });
    return vtt.toString("utf8");
  }
}

export type StreamingService = ReturnType<typeof createStreamingService>;
