import { ApiError, api } from "./api.ts";
import type { FileRec, PlaybackPosition } from "./types.ts";

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

/** Saves where playback is; `keepalive` lets the last save survive the page closing. */
export function savePosition(
  fileId: string,
  position: number,
  duration: number,
  keepalive = false,
): Promise<unknown> {
  return api("PUT", path(fileId), {
    body: { position_seconds: position, duration_seconds: Number.isFinite(duration) ? duration : 0 },
    keepalive,
  }).catch(() => undefined);
}

/** The "continue watching" list: started, not finished, newest first. */
export async function continueWatching(): Promise<(PlaybackPosition & { file?: FileRec })[]> {
  const r = await api<Record<string, unknown>>("GET", "/playback-positions", { query: { limit: 12 } });
  const list = (r.positions ?? r.items ?? r.results ?? []) as (PlaybackPosition & { file?: FileRec })[];
  return list;
}
