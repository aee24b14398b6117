/**
 * Subtitles: which files next to a video are its sidecars, and SubRip to
 * WebVTT (the one format media elements render). Pure functions.
 */

/** Sidecar subtitle formats, by extension. */
export const SIDECAR_FORMATS = { srt: "srt", vtt: "webvtt", ass: "ass", ssa: "ass" } as const;
export type SidecarFormat = (typeof SIDECAR_FORMATS)[keyof typeof SIDECAR_FORMATS];

/** Embedded subtitle codecs ffmpeg turns into WebVTT (text ones; images such as PGS cannot be). */
export const TEXT_SUBTITLE_CODECS = new Set(["subrip", "srt", "ass", "ssa", "webvtt", "mov_text", "text"]);

/** Sidecar subtitles are numbered from here, after any stream index a file can have. */
export const SIDECAR_BASE = 1000;

/** The name without its extension: what sidecars start with. */
export function stemOf(name: string): string {
  const dot = name.lastIndexOf(".");
  return dot > 0 ? name.slice(0, dot) : name;
}

/**
 * When `name` is a sidecar of a video whose stem is `stem`: its format and
 * language (`movie.srt`, `movie.en.srt`, `movie.pt-BR.forced.vtt`, `movie.ass`).
 */
export function sidecarOf(
  stem: string,
  name: string,
): { format: SidecarFormat; language?: string; label?: string } | undefined {
  if (!name.startsWith(`${stem}.`)) return undefined;
  const parts = name.slice(stem.length + 1).split(".");
  const ext = (parts.pop() ?? "").toLowerCase();
  const format = SIDECAR_FORMATS[ext as keyof typeof SIDECAR_FORMATS];
  if (!format || parts.length > 3) return undefined;
  const language = parts.find((p) => /^[a-z]{2,3}(-[a-z0-9]{2,8})?$/i.test(p) && !/^(sdh|cc)$/i.test(p));
  const label = parts.join(".") || undefined;
  return { format, ...(language ? { language: language.toLowerCase() } : {}), ...(label ? { label } : {}) };
}

/** Decodes subtitle bytes: UTF-8 (with or without BOM, or UTF-16 with one), else Windows-1252, common for old .srt files. */
export function decodeSubtitle(bytes: Buffer): string {
  if (bytes[0] === 0xff && bytes[1] === 0xfe) return new TextDecoder("utf-16le").decode(bytes.subarray(2));
  if (bytes[0] === 0xfe && bytes[1] === 0xff) return new TextDecoder("utf-16be").decode(bytes.subarray(2));
  try {
    return new TextDecoder("utf-8", { fatal: true, ignoreBOM: false }).decode(bytes);
  } catch {
    return new TextDecoder("windows-1252").decode(bytes);
  }
}

/**
 * Whether subtitle bytes are Unicode that ffmpeg reads as it is (UTF-8, or
 * UTF-16 with a BOM); anything else is read as Windows-1252, as decodeSubtitle does.
 */
export function isUnicodeSubtitle(bytes: Buffer): boolean {
  if ((bytes[0] === 0xff && bytes[1] === 0xfe) || (bytes[0] === 0xfe && bytes[1] === 0xff)) return true;
  try {
    new TextDecoder("utf-8", { fatal: true }).decode(bytes);
    return true;
  } catch {
    return false;
  }
}

const SRT_TIME = /(\d{1,2}):(\d{2}):(\d{2})[,.](\d{1,3})/g;

/**
 * SubRip to WebVTT: the header, `.` for the milliseconds' `,`, override
 * codes such as `{\an8}` dropped (VTT would show them), everything else kept.
 */
export function srtToVtt(srt: string): string {
  const lines = srt
    .replace(/^\uFEFF/, "")
    .replace(/\r\n?/g, "\n")
    .split("\n");
  const out = ["WEBVTT", ""];
  for (const line of lines) {
    if (line.includes("-->")) {
      out.push(
        line.replace(SRT_TIME, (_m, h: string, mi: string, s: string, ms: string) => {
          return `${h.padStart(2, "0")}:${mi}:${s}.${ms.padEnd(3, "0")}`;
        }),
      );
    } else {
      out.push(line.replace(/\{\\[^}]*\}/g, ""));
    }
  }
  return `${out.join("\n").trimEnd()}\n`;
}

/** A WebVTT file as is, when it is one (it must start with the WEBVTT signature). */
export function asVtt(text: string): string | undefined {
  const t = text.replace(/^\uFEFF/, "").replace(/\r\n?/g, "\n");
  return /^WEBVTT(\s|$)/.test(t) ? t : undefined;
}
