import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Writable } from "node:stream";
import { afterAll, describe, expect, it } from "vitest";
import { pumpFile } from "../../src/platform/file-pump.ts";
import { keptOpenCount, openForRead } from "../../src/platform/open-files.ts";

const dir = mkdtempSync(join(tmpdir(), "attic-pump-"));
const file = join(dir, "data.bin");
const data = randomBytes(1024 * 1024 + 12345);
writeFileSync(file, data);
const open = (path: string) => openForRead(path, { reuse: false });

/** A slow sink that keeps copies of what it receives (the pump reuses its buffers). */
function sink(): { out: Writable; bytes: () => Buffer } {
  const parts: Buffer[] = [];
  const out = new Writable({
    highWaterMark: 1024,
    write(chunk: Buffer, _enc, done) {
      parts.push(Buffer.from(chunk));
      setImmediate(done);
    },
  });
  return { out, bytes: () => Buffer.concat(parts) };
}

describe("pumpFile", () => {
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("copies whole files and inner ranges byte-exact through reused buffers", async () => {
    for (const [start, end] of [
      [0, data.length - 1],
      [1, 1],
      [0, 4095],
      [5000, 5000 + 256 * 1024 - 1],
      [100_000, 700_000],
      [data.length - 10, data.length - 1],
    ] as const) {
      const { out, bytes } = sink();
      await pumpFile(await open(file), start, end, out);
      expect(bytes().equals(data.subarray(start, end + 1)), `${start}-${end}`).toBe(true);
      expect(out.writableEnded).toBe(true);
    }
  });

  it("rejects when the file is shorter than the range, and when the sink goes away", async () => {
    await expect(pumpFile(await open(file), 0, data.length + 10, sink().out)).rejects.toThrow(/shorter/);
    await expect(pumpFile(await open(file), data.length - 5, data.length + 5, sink().out)).rejects.toThrow(
      /shorter/,
    );
    for (const end of [data.length - 1, 100]) {
      const { out } = sink();
      const done = pumpFile(await open(file), 0, end, out);
      out.destroy();
      await expect(done).rejects.toThrow();
    }
  });

  it("shares one kept descriptor among readers of an immutable file", async () => {
    const blob = join(dir, "blob.bin");
    writeFileSync(blob, data);
    const before = keptOpenCount();
    const [a, b] = await Promise.all([
      openForRead(blob, { reuse: true }),
      openForRead(blob, { reuse: true }),
    ]);
    expect(a.fd).toBe(b.fd);
    expect(keptOpenCount()).toBe(before + 1);
    const { out, bytes } = sink();
    await pumpFile(a, 10, 20, out);
    expect(bytes().equals(data.subarray(10, 21))).toBe(true);
    b.release();
    b.release(); // a second release is ignored
    const c = await openForRead(blob, { reuse: true });
    expect(c.fd).toBe(a.fd); // still kept after every reader is done
    c.release();
    // A file opened without reuse has its own descriptor, closed on release.
    const own = await openForRead(blob, { reuse: false });
    expect(own.fd).not.toBe(a.fd);
    own.release();
    await expect(openForRead(join(dir, "missing"), { reuse: true })).rejects.toMatchObject({
      code: "ENOENT",
    });
  });
});
