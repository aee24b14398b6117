import type { ServerResponse } from "node:http";
import type { OpenedContent } from "../domain/files/content.ts";
import type { FileRow } from "../domain/files/files.repo.ts";
import type { ZipEntry } from "../domain/files/files.service.ts";
import type { Logger } from "../log.ts";
import { loadOnce } from "../platform/lazy.ts";
import { RecycledBuffers, recycledFileStream } from "../platform/recycled-reads.ts";
import type { Env } from "./env.ts";
import { contentDisposition } from "./file-response.ts";

type Ctx = import("hono").Context<Env>;

/** yazl, loaded by the first zip download rather than at start; its CRC-32 goes native first (see zip-crc.ts). */
const yazl = loadOnce(async () => {
  await import("../platform/zip-crc.ts");
  return import("yazl");
});

/**
 * Streams a zip of `entries` as it is written (yazl): stored without
 * compression (media does not shrink, and storing keeps the speed of a plain
 * download), UTF-8 names, Zip64 past 4 GiB or 65,535 entries. Each file is
 * opened only when its turn comes, so memory and open descriptors stay flat
 * whatever the folder's size. A client that goes away stops the work; a file
 * that fails mid-way aborts the response (a cut-off zip never passes as whole).
 */
export async function sendZip(
  c: Ctx,
  name: string,
  entries: readonly ZipEntry[],
  open: (row: FileRow) => Promise<OpenedContent>,
  log: Logger,
): Promise<Response> {
  const { ZipFile } = await yazl();
  const out = c.env?.outgoing as ServerResponse | undefined;
  const zip = new ZipFile();
  // Read buffers come back when the response has written them (below): no allocation per megabyte.
  const buffers = new RecycledBuffers();
  for (const e of entries) {
    const mtime = new Date(e.row.updated_at);
    if (e.row.type === "directory") {
      zip.addEmptyDirectory(e.path, { mtime });
      continue;
    }
    zip.addReadStreamLazy(e.path, { compress: false, size: e.row.size, mtime }, (cb) => {
      open(e.row).then(
        (content) => cb(null, recycledFileStream(content.path, buffers)),
        (err: unknown) => cb(err as Error, undefined as never),
      );
    });
  }
  const headers: Record<string, string> = {
    "Content-Type": "application/zip",
    "Content-Disposition": contentDisposition("attachment", name),
    // The security headers (nosniff among them) are already set: platform/security-headers.ts.
    "Cache-Control": "private, no-store",
  };
  const requestId = c.get("requestId");
  if (requestId) headers["X-Request-Id"] = requestId;
  // Every entry's size is given and nothing is compressed, so yazl knows the
  // archive's size before writing it (it calls back at once): browsers show progress.
  let total = -1;
  // (@types/yazl omits the callback's argument.)
  const end = zip.end as unknown as (options: object, sized: (size: number) => void) => void;
  end.call(zip, {}, (size) => {
    total = size;
  });
  if (total >= 0) headers["Content-Length"] = String(total);
  if (!out) {
    return c.body(zip.outputStream as never, 200, headers);
  }
  zip.on("error", (err: unknown) => {
    log.warn({ err }, "zip download stopped");
    out.destroy();
  });
  out.on("close", () => {
    if (!out.writableFinished) (zip.outputStream as unknown as { destroy(): void }).destroy();
  });
  out.writeHead(200, headers);
  // pipe() by hand, so each chunk's buffer is given back once the response has written it.
  const source = zip.outputStream;
  source.on("data", (chunk: Buffer) => {
    const more = out.write(chunk, () => buffers.release(chunk));
    if (!more) {
      source.pause();
      out.once("drain", () => source.resume());
    }
  });
  source.once("end", () => out.end());
  return RESPONSE_ALREADY_SENT;
}

/** Tells @hono/node-server the handler wrote to the Node response itself. */
const RESPONSE_ALREADY_SENT = new Response(null, { headers: { "x-hono-already-sent": "true" } });
