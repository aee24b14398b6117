import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { filePieces } from "../../src/platform/file-pump.ts";
import { openForRead, readAt } from "../../src/platform/open-files.ts";

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
