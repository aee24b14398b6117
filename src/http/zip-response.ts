import type { ServerResponse } from "node:http";
import type { OpenedContent } from "../domain/files/content.ts";
import type { ZipEntry, ZipPlan } from "../domain/files/files.service.ts";
import type { Logger } from "../log.ts";
import { loadOnce } from "../platform/lazy.ts";
import { RecycledBuffers, recycledFileStream } from "../platform/recycled-reads.ts";
import type { Env } from "./env.ts";
import { contentDisposition } from "./file-response.ts";

type Ctx = import("hono").Context<Env>;

/**
 * yazl, loaded by the first zip download rather than at start; its CRC-32 goes
 * native first (see zip-crc.ts), and each local header gets a timestamp field
 * (see withLocalTimestamps).
 */
const yazl = loadOnce(async () => {
  await import("../platform/zip-crc.ts");
  const lib = await import("yazl");
  withLocalTimestamps(lib.ZipFile);
  return lib;
});

/** The part of yazl's entry (not its public API) this file relies on. */
interface YazlEntry {
  utf8FileName: Buffer;
  /** False for a stream, whose CRC and size follow its data in a data descriptor. */
  crcAndFileSizeKnown: boolean;
  uncompressedSize: number;
  mtime: Date;
  getLocalFileHeader(): Buffer;
}
const entriesOf = (zip: object): YazlEntry[] => (zip as { entries: YazlEntry[] }).entries;

/** "UT" (0x5455), Info-ZIP's extended timestamp, local form: flags, then mtime and atime (Unix seconds). */
const LOCAL_UT_LENGTH = 4 + 1 + 4 + 4;

/**
 * yazl writes the extended-timestamp extra field in the central directory
 * only, and no extra field at all in the local headers. Info-ZIP's unzip
 * converts a UTF-8 name (bit 11) to the locale's charset while it reads the
 * extra field that follows the name, a step skipped when that field is empty
 * (fileio.c, do_string). So it converted the central name but not the local
 * one, and in a locale without UTF-8 (C, POSIX: `env -i`, cron, containers)
 * the central name became "#U00e9" escapes, unlike the local one: "mismatching
 * local filename" for every non-ASCII entry, exit status 1. A Zip64 entry's
 * central extra field does the same, so dropping the timestamp (yazl's
 * forceDosTimestamp) would mend only archives under 4 GiB.
 * With the field in both headers both names are converted alike (as in
 * Info-ZIP's own zip), and unzip sets an extracted file's mtime from it in UTC
 * rather than from the DOS time, which is the server's local time.
 *
 * Set on the prototype, before any entry exists: yazl writes a local header as
 * soon as the entry is added when it is next in line.
 */
function withLocalTimestamps(ZipFile: typeof import("yazl").ZipFile): void {
  const probe = new ZipFile();
  probe.addEmptyDirectory("probe");
  const entry = Object.getPrototypeOf(entriesOf(probe)[0]) as YazlEntry;
  const yazlHeader = entry.getLocalFileHeader;
  entry.getLocalFileHeader = function (this: YazlEntry): Buffer {
    const header = yazlHeader.call(this);
    // The extra field's length, at offset 28: yazl writes none, this field follows the name.
    header.writeUInt16LE(header.readUInt16LE(28) + LOCAL_UT_LENGTH, 28);
    const ut = Buffer.alloc(LOCAL_UT_LENGTH);
    ut.writeUInt16LE(0x5455, 0);
    ut.writeUInt16LE(LOCAL_UT_LENGTH - 4, 2);
    // mtime and atime, as the central field's flags (yazl's, 0x03) say the local one holds;
    // no access time is kept, so the modification time stands for it (as unzip does without one).
    ut.writeUInt8(0x03, 4);
    const seconds = Math.max(-0x80000000, Math.min(0x7fffffff, Math.floor(this.mtime.getTime() / 1000)));
    ut.writeInt32LE(seconds, 5);
    ut.writeInt32LE(seconds, 9);
    return Buffer.concat([header, ut]);
  };
}

/**
 * The archive's length, from yazl's entries as it writes them (stored, a data
 * descriptor after each stream, Zip64 fields past 4 GiB) with the local
 * timestamps above. yazl's own estimate (`end`'s callback) misses those
 * timestamps, and counts a Zip64 end record once the central directory passes
 * 64 KiB (~800 entries) where it writes one only past 4 GiB.
 */
function zipLength(entries: readonly YazlEntry[]): number {
  const MAX32 = 0xffffffff;
  let offset = 0;
  let central = 0;
  for (const e of entries) {
    const zip64 = e.uncompressedSize > MAX32 - 1 || offset > MAX32 - 1;
    offset += 30 + e.utf8FileName.length + LOCAL_UT_LENGTH + e.uncompressedSize;
    if (!e.crcAndFileSizeKnown) offset += zip64 ? 24 : 16;
    central += 46 + e.utf8FileName.length + 9 + (zip64 ? 28 : 0);
  }
  const zip64End = entries.length >= 0xffff || central >= MAX32 || offset >= MAX32;
  return offset + central + (zip64End ? 56 + 20 : 0) + 22;
}

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
  plan: ZipPlan,
  open: (entry: ZipEntry) => Promise<OpenedContent>,
  log: Logger,
): Promise<Response> {
  try {
    return await writeZip(c, plan, open, log);
  } catch (err) {
    plan.release();
    throw err;
  }
}

/** sendZip's work; the plan's budget is given back once the response ends, however it ends. */
async function writeZip(
  c: Ctx,
  plan: ZipPlan,
  open: (entry: ZipEntry) => Promise<OpenedContent>,
  log: Logger,
): Promise<Response> {
  const { name, entries } = plan;
  const { ZipFile } = await yazl();
  const out = c.env?.outgoing as ServerResponse | undefined;
  const zip = new ZipFile();
  // Read buffers come back when the response has written them (below): no allocation per megabyte.
  const buffers = new RecycledBuffers();
  for (const e of entries) {
    const mtime = new Date(e.mtimeMs);
    if (e.directory) {
      zip.addEmptyDirectory(e.path, { mtime });
      continue;
    }
    zip.addReadStreamLazy(e.path, { compress: false, size: e.size, mtime }, (cb) => {
      open(e).then(
        (content) => {
          // yazl listens for no error of the streams it is given: a file gone or unreadable between
          // its check and its open (a host file deleted mid-zip, an I/O error) was an uncaught
          // exception, and the process stopped. It stops this zip instead.
          const stream = recycledFileStream(content.open, buffers);
          stream.once("error", (err) => zip.emit("error", err));
          cb(null, stream);
        },
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
  // Every entry's size is given and nothing is compressed, so the archive's
  // length is known before it is written: browsers show progress.
  headers["Content-Length"] = String(zipLength(entriesOf(zip)));
  zip.end();
  if (!out) {
    zip.on("error", (err: unknown) => {
      log.warn({ err }, "zip download stopped");
      (zip.outputStream as unknown as { destroy(): void }).destroy();
    });
    zip.outputStream.once("end", plan.release).once("close", plan.release);
    return c.body(zip.outputStream as never, 200, headers);
  }
  out.once("close", plan.release);
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
