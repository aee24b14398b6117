/**
 * sharp behind a small wrapper: image thumbnails as WebP. sharp is loaded on
 * first use, so a build without it still starts (thumbnails then answer 503).
 * Input is bounded (100 megapixels) and never SVG: librsvg would follow
 * external references in the file.
 */
type SharpFn = typeof import("sharp").default;

let loading: Promise<SharpFn | undefined> | undefined;

/** The sharp module, or undefined when it cannot be loaded here. */
export function loadSharp(): Promise<SharpFn | undefined> {
  loading ??= import("sharp").then(
    (m) => m.default,
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

/**
 * A WebP thumbnail of the image in `input` (path or bytes) fitting in
 * `size`×`size`, EXIF rotation applied, never enlarged. Rejects on images
 * sharp cannot read.
 */
export async function webpThumbnail(input: string | Buffer, size: number): Promise<Buffer> {
  const sharp = await loadSharp();
  if (!sharp) throw new Error("sharp is not available");
  return sharp(input, { limitInputPixels: 100_000_000, failOn: "error", pages: 1 })
    .rotate()
    .resize(size, size, { fit: "inside", withoutEnlargement: true })
    .webp({ quality: 75 })
    .toBuffer();
}
