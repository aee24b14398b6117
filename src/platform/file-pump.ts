import type { FileHandle } from "node:fs/promises";
import type { Writable } from "node:stream";

/** Size of each of the two reusable read buffers. */
const CHUNK = 256 * 1024;

/**
 * Copies bytes `start..end` (inclusive) of a file into `out` through two
 * reused buffers: read into one while the other is being written. Unlike
 * a ReadStream, it allocates nothing per chunk, so serving gigabytes does
 * not churn the garbage collector. Resolves when the last byte is handed
 * to `out` and `out` is ended; rejects when `out` goes away first. The
 * handle is closed either way (the caller opened it before sending the head).
 */
export async function pumpFile(fh: FileHandle, start: number, end: number, out: Writable): Promise<void> {
  // A client that leaves may never complete a pending write: stop waiting when the response closes.
  let onClose = () => {};
  const closed = new Promise<never>((_, reject) => {
    onClose = () => reject(new Error("response closed"));
  });
  closed.catch(() => {});
  out.once("close", onClose);
  try {
    // Small ranges (a media element's seek) get one small buffer, not half a megabyte.
    const length = end - start + 1;
    const size = Math.max(1, Math.min(CHUNK, length));
    const buffers = [takeBuffer(), length > size ? takeBuffer() : EMPTY];
    const inFlight: (Promise<void> | undefined)[] = [undefined, undefined];
    let pos = start;
    for (let i = 0; pos <= end; i ^= 1) {
      await Promise.race([inFlight[i], closed]); // this buffer's last write must be done before refilling it
      if (out.destroyed) throw new Error("response closed");
      const buf = buffers[i] as Buffer;
      const { bytesRead } = await fh.read(buf, 0, Math.min(size, end - pos + 1), pos);
      if (bytesRead === 0) throw new Error("file shorter than expected");
      pos += bytesRead;
      const pending = write(out, buf.subarray(0, bytesRead));
      pending.catch(() => {}); // observed through the race above; never an unhandled rejection
      inFlight[i] = pending;
    }
    await Promise.race([Promise.all(inFlight), closed]);
    // Every write has completed: nothing refers to the buffers any more. (After a failure they are
    // left to the collector: a write the socket never finished may still hold one.)
    for (const b of buffers) giveBack(b);
    out.off("close", onClose);
    await new Promise<void>((resolve) => out.end(resolve));
  } finally {
    out.off("close", onClose);
    await fh.close();
  }
}

/**
 * Read buffers shared by every download: a range request of 64 KiB used to
 * allocate its buffer anew, and thousands of them a second kept V8 busy
 * collecting external memory. At most FREE_MAX wait here for reuse.
 */
const free: Buffer[] = [];
const FREE_MAX = 64;
const EMPTY = Buffer.alloc(0);

function takeBuffer(): Buffer {
  return free.pop() ?? Buffer.allocUnsafeSlow(CHUNK);
}

function giveBack(b: Buffer): void {
  if (b.length === CHUNK && free.length < FREE_MAX) free.push(b);
}

function write(out: Writable, chunk: Buffer): Promise<void> {
  return new Promise((resolve, reject) => {
    out.write(chunk, (err) => (err ? reject(err) : resolve()));
  });
}
