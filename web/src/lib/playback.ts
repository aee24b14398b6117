import { ApiError, api } from "./api.ts";
import type { ContinueWatching, PlaybackInfo, PlaybackPosition } from "./types.ts";

const path = (fileId: string) => `/playback-positions/${encodeURIComponent(fileId)}`;

/** The saved position of a file for this user, or undefined when none was saved. */
export async function getPosition(fileId: string): Promise<PlaybackPosition | undefined> {
  try {
    return await api<PlaybackPosition>("GET", path(fileId));
  } catch (err) {
    if (err instanceof ApiError && err.status === 404) return undefined;
    throw err;
  }
}

let pending: Promise<unknown> = Promise.resolve();

/**
 * Saves where playback is. Saves go one after another, so a slow early one
 * cannot land after a later one and rewind the position; `keepalive` (the
 * page is going away) sends at once, as the queue would not outlive the page.
 */
export function savePosition(
  fileId: string,
  position: number,
  duration: number,
  keepalive = false,
): Promise<unknown> {
  const send = () =>
    api("PUT", path(fileId), {
      body: { position_seconds: position, duration_seconds: Number.isFinite(duration) ? duration : 0 },
      keepalive,
    }).catch(() => undefined);
  if (keepalive) return send();
  pending = pending.then(send);
  return pending;
}

/** The "continue watching" list: started, not finished, newest first. */
export async function continueWatching(): Promise<ContinueWatching["items"]> {
  return (await api<ContinueWatching>("GET", "/playback-positions", { query: { limit: 12 } })).items;
}

/** Codecs this browser decodes beyond the server's browser-safe default (MSE or the media element). */
function extraCodecs(): string[] {
  const probe = document.createElement("video");
  const can = (type: string) =>
    probe.canPlayType(type) !== "" ||
    (typeof MediaSource !== "undefined" && MediaSource.isTypeSupported(type));
  const extra: string[] = [];
  if (can('video/mp4; codecs="hvc1.1.6.L93.B0"')) extra.push("hevc");
  if (can('audio/mp4; codecs="ac-3"')) extra.push("ac3");
  if (can('audio/mp4; codecs="ec-3"')) extra.push("eac3");
  return extra;
}

const DEFAULT_CODECS = [
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
];

/** How a file plays here: direct, remux or transcode, its tracks, subtitles and URLs. */
export function playbackInfo(fileId: string, audio?: number): Promise<PlaybackInfo> {
  const extra = extraCodecs();
  const query: Record<string, string | number> = {};
  if (extra.length > 0) query.codecs = [...DEFAULT_CODECS, ...extra].join(",");
  if (audio !== undefined) query.audio = audio;
  return api<PlaybackInfo>("GET", `/files/${encodeURIComponent(fileId)}/playback-info`, { query });
}

/** The audio and subtitle tracks last chosen for a file, in this browser. */
export interface TrackChoice {
  audio?: number;
  /** A subtitle index, or -1 for "off". */
  subtitle?: number;
}

const choiceKey = (fileId: string) => `attic.tracks.${fileId}`;

export function loadChoice(fileId: string): TrackChoice {
  try {
    return JSON.parse(localStorage.getItem(choiceKey(fileId)) ?? "{}") as TrackChoice;
  } catch {
    return {};
  }
}

export function saveChoice(fileId: string, choice: TrackChoice): void {
  try {
    localStorage.setItem(choiceKey(fileId), JSON.stringify(choice));
  } catch {
    // Storage full or off: the choice lasts for this page only.
  }
}
