import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { open } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Writable } from "node:stream";
import { afterAll, describe, expect, it } from "vitest";
import { pumpFile } from "../../src/platform/file-pump.ts";

const dir = mkdtempSync(join(tmpdir(), "attic-pump-"));
const file = join(dir, "data.bin");
const data = randomBytes(1024 * 1024 + 12345);
writeFileSync(file, data);

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
      [100_000, 700_000],
      [data.length - 10, data.length - 1],
    ] as const) {
      const { out, bytes } = sink();
      await pumpFile(await open(file, "r"), start, end, out);
      expect(bytes().equals(data.subarray(start, end + 1)), `${start}-${end}`).toBe(true);
      expect(out.writableEnded).toBe(true);
    }
  });

  it("rejects when the file is shorter than the range, and when the sink goes away", async () => {
    await expect(pumpFile(await open(file, "r"), 0, data.length + 10, sink().out)).rejects.toThrow(/shorter/);
    const { out } = sink();
    const done = pumpFile(await open(file, "r"), 0, data.length - 1, out);
    out.destroy();
    await expect(done).rejects.toThrow();
  });
});
