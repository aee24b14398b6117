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
export async function continueWatching(): Promise<(PlaybackPosition & { file?: FileRec })[]> {
  const r = await api<Record<string, unknown>>("GET", "/playback-positions", { query: { limit: 12 } });
  const list = (r.positions ?? r.items ?? r.results ?? []) as (PlaybackPosition & { file?: FileRec })[];
  return list;
}
