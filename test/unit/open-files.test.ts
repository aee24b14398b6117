import { execFileSync } from "node:child_process";
import {
  closeSync,
  constants,
  mkdtempSync,
  openSync,
  realpathSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { filePieces } from "../../src/platform/file-pump.ts";
import { openForRead, readAt, setSlowReadMs } from "../../src/platform/open-files.ts";

describe("files kept open for reuse", () => {
  const dir = mkdtempSync(join(tmpdir(), "attic-open-files-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("never hands out a descriptor that a burst of other opens closed meanwhile", async () => {
    // More distinct files than are kept (128), opened at once: each open past the bound closes
    // idle files, and a file whose opener has not taken it yet is idle.
    const n = 300;
    for (let i = 0; i < n; i++) writeFileSync(join(dir, `f${i}`), `content of ${i}`);
    const files = await Promise.all(
      Array.from({ length: n }, (_, i) => openForRead(join(dir, `f${i}`), { reuse: true })),
    );
    const texts = await Promise.all(
      files.map(async (f) => {
        const buf = Buffer.alloc(64);
        const got = await readAt(f.fd, buf, 64, 0);
        f.release();
        return buf.subarray(0, got).toString();
      }),
    );
    expect(texts).toEqual(Array.from({ length: n }, (_, i) => `content of ${i}`));
  });

  it("reads a file in pieces byte-exact while the next read runs ahead", async () => {
    const bytes = Buffer.alloc(700_001);
    for (let i = 0; i < bytes.length; i++) bytes[i] = (i * 31) & 0xff;
    writeFileSync(join(dir, "big"), bytes);
    const copies: Buffer[] = [];
    const file = await openForRead(join(dir, "big"), { reuse: true });
    for await (const piece of filePieces(file, 1000, bytes.length - 2, 65536)) {
      expect(piece.length).toBeLessThanOrEqual(65536);
      copies.push(Buffer.from(piece));
    }
    expect(Buffer.concat(copies).equals(bytes.subarray(1000, bytes.length - 1))).toBe(true);
  });
});

describe("small reads of kept files on the event loop", () => {
  const dir = mkdtempSync(join(tmpdir(), "attic-warm-reads-"));
  afterAll(() => {
    setSlowReadMs(1);
    rmSync(dir, { recursive: true, force: true });
  });
  const bytes = Buffer.alloc(300 * 1024);
  for (let i = 0; i < bytes.length; i++) bytes[i] = (i * 7) & 0xff;

  async function kept(name: string) {
    writeFileSync(join(dir, name), bytes);
    return openForRead(join(dir, name), { reuse: true });
  }
  const read = (f: Awaited<ReturnType<typeof kept>>, length: number, position: number) => {
    const buf = Buffer.alloc(length);
    const got = f.read(buf, length, position);
    return { got, buf };
  };

  it("reads through the pool until a read of the file completed, then on the event loop, byte-exact", async () => {
    setSlowReadMs(Number.POSITIVE_INFINITY);
    const f = await kept("a");
    const first = read(f, 4096, 100);
    expect(first.got).toBeInstanceOf(Promise);
    expect(await first.got).toBe(4096);
    expect(first.buf.equals(bytes.subarray(100, 4196))).toBe(true);
    const second = read(f, 65536, 200_000);
    expect(second.got).toBe(65536);
    expect(second.buf.equals(bytes.subarray(200_000, 265_536))).toBe(true);
    // Past the end: the count of what is there, as the pool's read answers.
    const tail = read(f, 8192, bytes.length - 10);
    expect(tail.got).toBe(10);
    f.release();
  });

  it("keeps reads past 256 KiB and files opened afresh on the pool", async () => {
    setSlowReadMs(Number.POSITIVE_INFINITY);
    const f = await kept("b");
    await read(f, 16, 0).got;
    const big = read(f, 256 * 1024 + 1, 0);
    expect(big.got).toBeInstanceOf(Promise);
    expect(await big.got).toBe(256 * 1024 + 1);
    f.release();
    writeFileSync(join(dir, "c"), bytes);
    const fresh = await openForRead(join(dir, "c"), { reuse: false });
    for (let i = 0; i < 2; i++) {
      const r = read(fresh, 16, 0);
      expect(r.got).toBeInstanceOf(Promise);
      await r.got;
    }
    fresh.release();
  });

  it("opens a file afresh only if its descriptor is the file its real path names", async () => {
    const real = realpathSync(dir);
    writeFileSync(join(real, "host.txt"), "inside");
    const outside = mkdtempSync(join(tmpdir(), "attic-outside-"));
    writeFileSync(join(outside, "secret.txt"), "outside");
    // The checked path, swapped for a link leaving the folder before the download opens it.
    symlinkSync(join(outside, "secret.txt"), join(real, "swapped.txt"));
    try {
      const ok = await openForRead(join(real, "host.txt"), { reuse: false });
      ok.release();
      await expect(openForRead(join(real, "swapped.txt"), { reuse: false })).rejects.toMatchObject({
        code: "ENOENT",
      });
    } finally {
      rmSync(outside, { recursive: true, force: true });
    }
  });

  it("opens afresh only a regular file, never waiting on a FIFO swapped in", async () => {
    const real = realpathSync(dir);
    const fifo = join(real, "fifo");
    execFileSync("mkfifo", [fifo]);
    try {
      await expect(openForRead(fifo, { reuse: false })).rejects.toMatchObject({ code: "ENOENT" });
    } finally {
      // Had the open blocked, a writer lets its thread go.
      try {
        closeSync(openSync(fifo, constants.O_WRONLY | constants.O_NONBLOCK));
      } catch {
        // ENXIO: no reader waits on it
      }
    }
  });

  it("sends every file's reads back to the pool for a while after a slow one", async () => {
    setSlowReadMs(Number.POSITIVE_INFINITY);
    const f = await kept("d");
    const g = await kept("e");
    await read(f, 16, 0).got;
    await read(g, 16, 0).got;
    expect(typeof read(g, 16, 0).got).toBe("number");
    setSlowReadMs(0); // every read on the event loop now counts as slow
    const slow = read(f, 4096, 0);
    expect(slow.got).toBe(4096); // that read itself is done
    expect(slow.buf.equals(bytes.subarray(0, 4096))).toBe(true);
    // Paused: the other warm file goes through the pool too, and still reads right.
    const other = read(g, 4096, 8192);
    expect(other.got).toBeInstanceOf(Promise);
    expect(await other.got).toBe(4096);
    expect(other.buf.equals(bytes.subarray(8192, 12288))).toBe(true);
    // The pause ended (setSlowReadMs ends it): g, warm again, reads on the event loop; f, which was
    // slow, waits for a pooled read of its own first.
    setSlowReadMs(Number.POSITIVE_INFINITY);
    expect(typeof read(g, 16, 0).got).toBe("number");
    const again = read(f, 16, 0);
    expect(again.got).toBeInstanceOf(Promise);
    await again.got;
    expect(typeof read(f, 16, 0).got).toBe("number");
    f.release();
    g.release();
  });
});
