import type { FileRec } from "./types.ts";

const UNITS = ["B", "KB", "MB", "GB", "TB"];

/** 1536 → "1.5 KB": decimal-free below 10 of a unit is too coarse, so one decimal there. */
export function formatSize(bytes: number): string {
  let n = bytes;
  let u = 0;
  while (n >= 1024 && u < UNITS.length - 1) {
    n /= 1024;
    u++;
  }
  return `${u === 0 || n >= 10 ? Math.round(n) : n.toFixed(1)} ${UNITS[u]}`;
}

const dateFmt = new Intl.DateTimeFormat(undefined, { dateStyle: "medium", timeStyle: "short" });

export function formatDate(iso: string | undefined | null): string {
  if (!iso) return "";
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? "" : dateFmt.format(d);
}

/** 3725 → "1:02:05". */
export function formatDuration(seconds: number): string {
  const s = Math.max(0, Math.floor(seconds));
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  const ss = String(s % 60).padStart(2, "0");
  return h ? `${h}:${String(m).padStart(2, "0")}:${ss}` : `${m}:${ss}`;
}

export type Kind = "folder" | "image" | "video" | "audio" | "text" | "pdf" | "archive" | "file";

/** What a file is, for its icon and for which viewer opens it. */
export function kindOf(f: Pick<FileRec, "type" | "mime_type" | "name">): Kind {
  if (f.type === "directory") return "folder";
  const m = f.mime_type || "";
  if (m.startsWith("image/")) return "image";
  if (m.startsWith("video/")) return "video";
  if (m.startsWith("audio/")) return "audio";
  if (
    m.startsWith("text/") ||
    m === "application/json" ||
    /\.(txt|md|json|csv|log|ya?ml|toml|ini)$/i.test(f.name)
  )
    return "text";
  if (m === "application/pdf") return "pdf";
  if (/zip|tar|gzip|x-7z|rar|bzip/.test(m)) return "archive";
  return "file";
}

/** Media the server streams with ranges (docs/api.md's list). */
export function isPlayable(f: FileRec): boolean {
  const k = kindOf(f);
  return k === "video" || k === "audio";
}

/** "name (2).ext" style free name for a clash, keeping the extension. */
export function numberedName(name: string, n: number): string {
  const dot = name.lastIndexOf(".");
  return dot > 0 ? `${name.slice(0, dot)} (${n})${name.slice(dot)}` : `${name} (${n})`;
}

/** Human message for an error thrown by the API client or anything else. */
export function messageOf(err: unknown): string {
  if (err instanceof Error) return err.message;
  return String(err);
}
