/**
 * The outcome of reading a Range header against a representation of `size`
 * bytes (RFC 9110 §14): serve the whole thing, one byte range, or 416.
 */
export type RangeResult =
  | { kind: "full" }
  | { kind: "partial"; start: number; end: number }
  | { kind: "unsatisfiable" };

const SINGLE = /^bytes=(\d*)-(\d*)$/i;

/**
 * Parses a Range header for one byte range. Absent, malformed or non-byte
 * ranges are ignored (the whole representation, as RFC 9110 allows); so are
 * multi-range requests, which would otherwise cost a multipart body and can
 * be abused to ask for more bytes than the file has. `end` is inclusive and
 * clamped to the last byte.
 */
export function parseRange(header: string | undefined | null, size: number): RangeResult {
  if (!header) return { kind: "full" };
  const m = SINGLE.exec(header.trim().replace(/\s+/g, ""));
  if (!m) return { kind: "full" };
  const [, first = "", last = ""] = m;
  if (first === "" && last === "") return { kind: "full" };
  if (first === "") {
    // Suffix range: the last N bytes.
    const n = Number(last);
    if (n === 0 || size === 0) return { kind: "unsatisfiable" };
    return { kind: "partial", start: Math.max(0, size - n), end: size - 1 };
  }
  // Digit strings too long for a safe integer lie past any file: a start there is
  // unsatisfiable, an end there is clamped like any end past the last byte.
  const start = Number(first);
  const end = last === "" || !Number.isSafeInteger(Number(last)) ? Number.MAX_SAFE_INTEGER : Number(last);
  if (!Number.isSafeInteger(start) || start >= size) return { kind: "unsatisfiable" };
  if (end < start) return { kind: "full" };
  return { kind: "partial", start, end: Math.min(end, size - 1) };
}

/**
 * Whether an If-Range validator still matches, so the Range applies
 * (RFC 9110 §13.1.5): a strong ETag compared exactly, or an HTTP date equal
 * to Last-Modified. Anything else means "send the whole thing".
 */
export function ifRangeMatches(
  ifRange: string | undefined | null,
  etag: string,
  lastModified: Date,
): boolean {
  if (!ifRange) return true;
  const v = ifRange.trim();
  if (v.startsWith('"') || v.startsWith("W/")) return v === etag;
  const when = Date.parse(v);
  return Number.isFinite(when) && Math.floor(when / 1000) === Math.floor(lastModified.getTime() / 1000);
}
