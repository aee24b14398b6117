import type { ServerResponse } from "node:http";
import { Readable } from "node:stream";
import type { OpenedContent } from "../domain/files/content.ts";
import { ifRangeMatches, parseRange } from "../domain/files/range.ts";
import { AppError } from "../errors.ts";
import { pumpFile } from "../platform/file-pump.ts";
import { openForRead, type ReadableFile } from "../platform/open-files.ts";
import type { Ctx } from "./env.ts";
import { errorResponse } from "./on-error.ts";

/**
 * `Content-Disposition` for a user-chosen name (RFC 6266 / 8187): an ASCII
 * fallback with anything risky replaced, and the exact name percent-encoded
 * in `filename*`. No byte of the name can end the header or start another.
 */
export function contentDisposition(kind: "attachment" | "inline", name: string): string {
  const fallback = name.replace(/[^\x20-\x7e]|["\\%;]/g, "_") || "download";
  const encoded = encodeURIComponent(name).replace(
    /['()*]/g,
    (ch) => `%${ch.charCodeAt(0).toString(16).toUpperCase()}`,
  );
  return `${kind}; filename="${fallback}"; filename*=UTF-8''${encoded}`;
}

/** True when the request's validators say the client's copy is current (RFC 9110 §13.1). */
function notModified(c: Ctx, etag: string, lastModified: Date): boolean {
  const inm = c.req.header("if-none-match");
  if (inm !== undefined) {
    return inm.trim() === "*" || inm.split(",").some((t) => t.trim().replace(/^W\//, "") === etag);
  }
  const ims = c.req.header("if-modified-since");
  if (ims === undefined) return false;
  const since = Date.parse(ims);
  return Number.isFinite(since) && lastModified.getTime() <= since;
}

/**
 * Answers with a file's bytes: never rendered in Attic's origin (sandboxing
 * CSP, nosniff, Content-Disposition), strong ETag and Last-Modified, 304 on
 * a matching If-None-Match / If-Modified-Since, and a single byte range
 * (206, 416 with `bytes * /size`, If-Range). Multi-range asks get the whole
 * file. The body is a file stream, never a buffer.
 */
export async function sendContent(
  c: Ctx,
  content: OpenedContent,
  disposition: "attachment" | "inline",
): Promise<Response> {
  const { row, size, etag, lastModified } = content;
  const headers: Record<string, string> = {
    "Content-Type": row.mime_type,
    "Content-Disposition": contentDisposition(disposition, row.name),
    "Content-Security-Policy": "sandbox; default-src 'none'",
    "X-Content-Type-Options": "nosniff",
    "Cache-Control": "private, no-cache",
    "Accept-Ranges": "bytes",
    ETag: etag,
    "Last-Modified": lastModified.toUTCString(),
  };
  if (notModified(c, etag, lastModified)) return c.body(null, 304, headers);
  let range = parseRange(c.req.header("range"), size);
  if (range.kind !== "full" && !ifRangeMatches(c.req.header("if-range"), etag, lastModified))
    range = { kind: "full" };
  if (range.kind === "unsatisfiable") {
    return errorResponse(
      c,
      new AppError("RANGE_NOT_SATISFIABLE", `range not satisfiable for ${size} bytes`),
      {
        "Content-Range": `bytes */${size}`,
        "Accept-Ranges": "bytes",
      },
    );
  }
  const part = range.kind === "partial" ? { start: range.start, end: range.end } : undefined;
  const length = part ? part.end - part.start + 1 : size;
  headers["Content-Length"] = String(length);
  if (part) headers["Content-Range"] = `bytes ${part.start}-${part.end}/${size}`;
  const status = part ? 206 : 200;
  if (c.req.method === "HEAD" || length === 0) return c.body(null, status, headers);
  return sendStream(c, status, headers, content, part ?? { start: 0, end: size - 1 });
}

/**
 * Writes the head and copies the bytes straight into the Node response
 * with two reused buffers (pumpFile): measured about twice as fast as
 * handing Hono a web ReadableStream, with no per-chunk garbage. Headers
 * that middleware would add after the handler (the request id) are added
 * here, merged with those set before it (CORS, rate limits); the security
 * headers are already on the Node response (withSecurityHeaders).
 */
async function sendStream(
  c: Ctx,
  status: number,
  headers: Record<string, string>,
  content: OpenedContent,
  part: { start: number; end: number },
): Promise<Response> {
  const out = c.env?.outgoing as ServerResponse | undefined;
  if (!out) return c.body(Readable.toWeb(content.stream(part)) as ReadableStream, status as 200, headers);
  const head: Record<string, string> = {};
  c.res.headers.forEach((v, k) => {
    head[k] = v;
  });
  const requestId = c.get("requestId");
  if (requestId) head["x-request-id"] = requestId;
  for (const [k, v] of Object.entries(headers)) head[k.toLowerCase()] = v;
  // Opened before the head: a lost blob or vanished host file is a clean error, not a cut-off body.
  let file: ReadableFile;
  try {
    file = await openForRead(content.path, { reuse: content.immutable });
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === "ENOENT" || code === "ENOTDIR") {
      return errorResponse(c, new AppError("FILE_NOT_FOUND", "the stored content is missing"));
    }
    throw err;
  }
  out.writeHead(status, head);
  pumpFile(file, part.start, part.end, out).catch((err) => {
    // Usually a client that left mid-download; the connection is done either way.
    c.get("log")?.debug({ err, file: content.row.id }, "download ended early");
    out.destroy();
  });
  return new Response(null, { status, headers: { "x-hono-already-sent": "true" } });
}
