import { createHash } from "node:crypto";
import { join } from "node:path";
import { AppError } from "../../errors.ts";
import { DiskCache } from "../../platform/disk-cache.ts";
import type { MediaTools } from "../../platform/ffmpeg.ts";
import { loadSharp, THUMBNAIL_IMAGE_TYPES, webpThumbnail } from "../../platform/images.ts";
import { createJobQueue } from "../../platform/job-queue.ts";
import { readCoverArt } from "../../platform/music.ts";
import type { Actor } from "../actor.ts";
import { type OpenedContent, withOpened } from "../files/content.ts";

/** Thumbnail sizes served (a fixed set keeps the cache small). */
export const THUMBNAIL_SIZES = [128, 256, 512, 1024] as const;
/** Thumbnails made at once; more requests wait their turn. */
const CONCURRENCY = 2;

export interface Thumbnail {
  bytes: Buffer;
  etag: string;
}

/**
 * Thumbnails of images (sharp; never SVG), poster frames of videos (ffmpeg)
 * and the cover art embedded in music files (music-metadata), as WebP, cached on disk under DATA_DIR/thumbnails by content
 * version and size, at most `cacheMaxBytes` (least recently used evicted).
 * At most CONCURRENCY are made at once, and the same thumbnail asked twice
 * meanwhile is made once.
 */
export function createThumbnailService(deps: {
  openContent: (actor: Actor, id: string) => Promise<OpenedContent>;
  tools: MediaTools;
  dataDir: string;
  cacheMaxBytes: number;
  /** Longest time one image's thumbnail may take (sharp's timeout; 413 beyond). */
  timeoutSeconds: number;
}) {
  const cache = new DiskCache(join(deps.dataDir, "thumbnails"), deps.cacheMaxBytes, ".webp");
  const queue = createJobQueue({ concurrency: CONCURRENCY });

  /** Renders from the one opened and checked file (see OpenedContent.open), whatever reads it. */
  async function render(content: OpenedContent, size: number): Promise<Buffer> {
    const type = content.row.mime_type;
    const thumbnail = (input: Parameters<typeof webpThumbnail>[0]) =>
      webpThumbnail(input, size, deps.timeoutSeconds);
    if (THUMBNAIL_IMAGE_TYPES.has(type)) return withOpened(content, thumbnail);
    if (type.startsWith("video/")) {
      const frame = await withOpened(content, (file) => deps.tools.posterFrame(file));
      if (!frame) throw new AppError("VALIDATION", "no frame could be read from this video");
      return thumbnail(frame);
    }
    if (type.startsWith("audio/")) {
      const cover = await withOpened(content, readCoverArt);
      if (!cover) throw new AppError("VALIDATION", "this music file has no cover art");
      return thumbnail(cover);
    }
    throw new AppError("VALIDATION", `no thumbnail for ${type} files`);
  }

  async function make(content: OpenedContent, size: number, key: string): Promise<Buffer> {
    const cached = await cache.get(key);
    if (cached) return cached;
    const bytes = await render(content, size).catch((err: unknown) => {
      if (err instanceof AppError) throw err;
      throw new AppError("VALIDATION", "the file could not be read as an image", undefined, { cause: err });
    });
    await cache.put(key, bytes);
    return bytes;
  }

  return {
    /** A WebP thumbnail of a file fitting in size×size (400 for other types, 503 without sharp/ffmpeg). */
    async get(actor: Actor, id: string, size: number): Promise<Thumbnail> {
      const content = await deps.openContent(actor, id);
      if (content.row.mime_type.startsWith("video/") && !(await deps.tools.ready())) {
        throw new AppError("UNAVAILABLE", "video thumbnails are off (ffmpeg missing)");
      }
      if (!(await loadSharp())) throw new AppError("UNAVAILABLE", "thumbnails are off (sharp missing)");
      const key = createHash("sha256").update(`${content.row.id}\0${content.etag}\0${size}`).digest("hex");
      // A cached thumbnail is read outside the queue: only making one waits for a slot.
      const bytes = (await cache.get(key)) ?? (await queue.run(key, () => make(content, size, key)));
      return { bytes, etag: `"${key.slice(0, 32)}"` };
    },
  };
}

export type ThumbnailService = ReturnType<typeof createThumbnailService>;
