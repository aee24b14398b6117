import { isUtf8 } from "node:buffer";
import { lookup } from "mime-types";
import { loadOnce } from "../../platform/lazy.ts";

/** file-type's sniffers load with the first upload, not at start. */
const fileType = loadOnce(() => import("file-type"));

export const DIRECTORY_MIME = "inode/directory";

/** Aliases folded into the names docs/api.md lists for /stream. */
const ALIASES: Record<string, string> = {
  "audio/x-wav": "audio/wav",
  "audio/wave": "audio/wav",
  "audio/vnd.wave": "audio/wav",
  "audio/mp3": "audio/mpeg",
  "audio/x-mp3": "audio/mpeg",
};

/** Media types /stream serves (docs/api.md); anything else is 400 there. */
export const STREAMABLE = new Set([
  "video/mp4",
  "video/webm",
  "video/ogg",
  "audio/mpeg",
  "audio/ogg",
  "audio/wav",
  "audio/mp4",
  "audio/x-m4a",
]);

/** Audio and video types: what playback accepts (converting when the client cannot play them). */
export function isPlayable(mime: string): boolean {
  return mime.startsWith("video/") || mime.startsWith("audio/");
}

/** True for the types /content returns as text: text/* and JSON. */
export function isTextual(mime: string): boolean {
  return (
    mime.startsWith("text/") || mime === "application/json" || /^application\/[\w.+-]+\+json$/.test(mime)
  );
}

/**
 * The media type of uploaded content, never the client's claim: magic bytes
 * first (file-type), then the name's extension (mime-types), then a UTF-8
 * check for plain text, else application/octet-stream. A `.html` name on a
 * PNG is image/png.
 */
export async function detectMime(head: Uint8Array, name: string): Promise<string> {
  const { fileTypeFromBuffer } = await fileType();
  const sniffed = await fileTypeFromBuffer(head).catch(() => undefined);
  if (sniffed) return normalizeMime(sniffed.mime);
  const byName = lookup(name);
  if (byName) return normalizeMime(byName);
  return looksLikeText(head) ? "text/plain" : "application/octet-stream";
}

/** Lower-cases, strips parameters and folds known aliases. */
function normalizeMime(mime: string): string {
  const base = mime.split(";")[0]!.trim().toLowerCase();
  return ALIASES[base] ?? base;
}

function looksLikeText(head: Uint8Array): boolean {
  if (head.includes(0)) return false;
  // The head may end inside a multi-byte character: allow up to 3 cut bytes.
  for (let cut = 0; cut <= Math.min(3, head.byteLength); cut++) {
    if (isUtf8(head.subarray(0, head.byteLength - cut))) return true;
  }
  return false;
}
