import { AppError } from "../errors.ts";
import { pathOfOpen, type ReadableFile } from "./open-files.ts";

/**
 * sharp behind a small wrapper: image thumbnails as WebP. sharp is loaded on
 * first use, so a build without it still starts (thumbnails then answer 503).
 * Input is bounded (MAX_IMAGE_PIXELS) and never SVG: librsvg would follow
 * external references in the file.
 */
type SharpFn = typeof import("sharp").default;

let loading: Promise<SharpFn | undefined> | undefined;

/**
 * The sharp module, or undefined when it cannot be loaded here. libvips'
 * operation cache is turned off: it keys a load by its file name, and the
 * names sharp is given (/proc/self/fd/<n>, see webpThumbnail) are reused by
 * later files, which could then get an earlier file's pixels; thumbnails
 * have their own cache on disk.
 */
export function loadSharp(): Promise<SharpFn | undefined> {
  loading ??= import("sharp").then(
    (m) => {
      m.default.cache(false);
      return m.default;
    },
    () => undefined,
  );
  return loading;
}

/** Media types sharp may read for thumbnails (SVG deliberately absent). */
export const THUMBNAIL_IMAGE_TYPES = new Set([
  "image/jpeg",
  "image/png",
  "image/webp",
  "image/gif",
  "image/avif",
  "image/tiff",
  "image/heic",
  "image/heif",
]);

/** Largest image (width × height) a thumbnail is made of: a decompression bomb's guard. */
export const MAX_IMAGE_PIXELS = 100_000_000;

/**
 * A WebP thumbnail of the image in `input` (an opened file, read through its
 * descriptor, or bytes) fitting in `size`×`size`, EXIF rotation applied,
 * never enlarged. An image over MAX_IMAGE_PIXELS is AppError 413 saying so,
 * and so is one whose decoding takes longer than `timeoutSeconds`: libvips
 * works on a small shared thread pool, and a crafted or huge image must not
 * keep it busy for every other thumbnail. Other images sharp cannot read
 * reject with sharp's error.
 */
export async function webpThumbnail(
  input: ReadableFile | Buffer,
  size: number,
  timeoutSeconds: number,
): Promise<Buffer> {
  const sharp = await loadSharp();
  if (!sharp) throw new Error("sharp is not available");
  const source = Buffer.isBuffer(input) ? input : pathOfOpen(input);
  try {
    return await sharp(source, { limitInputPixels: MAX_IMAGE_PIXELS, failOn: "error", pages: 1 })
      .rotate()
      .resize(size, size, { fit: "inside", withoutEnlargement: true })
      .webp({ quality: 75 })
      .timeout({ seconds: timeoutSeconds })
      .toBuffer();
  } catch (err) {
    // sharp reads the dimensions first and refuses before decoding (src/common.cc).
    if (err instanceof Error && err.message.includes("exceeds pixel limit")) {
      throw new AppError(
        "PAYLOAD_TOO_LARGE",
        `this image is over ${MAX_IMAGE_PIXELS / 1_000_000} megapixels: no thumbnail is made of images that large`,
        { max_pixels: MAX_IMAGE_PIXELS },
        { cause: err },
      );
    }
    // sharp's timeout (src/pipeline.cc): "timeout: <n>% complete".
    if (err instanceof Error && err.message.startsWith("timeout:")) {
      throw new AppError(
        "PAYLOAD_TOO_LARGE",
        `this image takes longer than ${timeoutSeconds} s to decode: no thumbnail is made of it`,
        { timeout_seconds: timeoutSeconds },
        { cause: err },
      );
    }
    throw err;
  }
}
