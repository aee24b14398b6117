import { AppError } from "../../errors.ts";
import type { MediaInfo, MediaTools } from "../../platform/ffmpeg.ts";
import { createJobQueue } from "../../platform/job-queue.ts";
import type { Metrics } from "../../platform/metrics.ts";
import type { Actor } from "../actor.ts";
import { type OpenedContent, withOpened } from "../files/content.ts";

const CACHE_MAX = 2000;
/** ffprobe processes at once, whatever the number of requests. */
const PROBE_CONCURRENCY = 2;
/** How long a file ffprobe could not read answers 400 without being probed again. */
const FAILURE_TTL_MS = 60_000;

/**
 * Duration, codecs and resolution of audio/video files, read by ffprobe from
 * the stored blob or the host file. Results are cached per content version
 * (ETag), so players asking repeatedly cost one probe; at most
 * PROBE_CONCURRENCY probes run at once, the same version asked for while it
 * is probed is probed once, and a failure is remembered for a minute, so no
 * one user's burst of requests can start a process each. Without ffmpeg on
 * the machine: 503 ERR_UNAVAILABLE, and everything else keeps working.
 */
export function createMediaService(deps: {
  openPlayable: (actor: Actor, id: string) => Promise<OpenedContent>;
  tools: MediaTools;
  metrics: Metrics;
}) {
  const cache = new Map<string, MediaInfo>();
  const queue = createJobQueue({ concurrency: PROBE_CONCURRENCY, failureTtlMs: FAILURE_TTL_MS });

  async function probe(content: OpenedContent): Promise<MediaInfo> {
    const info = await withOpened(content, (file) => deps.tools.probe(file));
    deps.metrics.mediaProbes.inc({ result: info ? "ok" : "failed" });
    if (!info) throw new AppError("VALIDATION", "the file could not be read as media");
    return info;
  }

  /** What ffprobe says about an opened file (cached per version; 503 without ffmpeg, 400 when unreadable). */
  async function probeContent(content: OpenedContent): Promise<MediaInfo> {
    if (!(await deps.tools.ready()))
      throw new AppError("UNAVAILABLE", "media probing is off (ffmpeg missing)");
    const key = `${content.row.id}:${content.etag}`;
    const hit = cache.get(key);
    if (hit) {
      // Least recently used goes first: a hit moves to the end.
      cache.delete(key);
      cache.set(key, hit);
      return hit;
    }
    const info = await queue.run(key, () => probe(content));
    if (cache.size >= CACHE_MAX) cache.delete(cache.keys().next().value as string);
    cache.set(key, info);
    return info;
  }

  return {
    probe: probeContent,
    /** What ffprobe says about an audio or video file the actor may read. */
    async info(actor: Actor, id: string): Promise<MediaInfo> {
      return probeContent(await deps.openPlayable(actor, id));
    },
  };
}

export type MediaService = ReturnType<typeof createMediaService>;
