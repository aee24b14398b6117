import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { openForRead } from "../../src/platform/open-files.ts";
import { RecycledBuffers, recycledFileStream } from "../../src/platform/recycled-reads.ts";

describe("recycled read buffers", () => {
  it("reuses a buffer only after its release, ignoring foreign and repeated releases", () => {
    const pool = new RecycledBuffers();
    const a = pool.take();
    const b = pool.take();
    expect(a.buffer).not.toBe(b.buffer);
    pool.release(Buffer.alloc(10));
    pool.release(a.subarray(0, 5));
    pool.release(a);
    const c = pool.take();
    expect(c.buffer).toBe(a.buffer);
    // b was never given back: a new buffer, never one still in use.
    const d = pool.take();
    expect([a.buffer, b.buffer]).not.toContain(d.buffer);
  });

  it("streams a file byte-exact when the reader gives every chunk back after copying it", async () => {
    const dir = mkdtempSync(join(tmpdir(), "attic-recycled-"));
    try {
      const bytes = Buffer.alloc(5 * 1024 * 1024 + 123);
      for (let i = 0; i < bytes.length; i++) bytes[i] = (i * 7919) & 0xff;
      writeFileSync(join(dir, "f.bin"), bytes);
      const pool = new RecycledBuffers();
      const copies: Buffer[] = [];
      for await (const chunk of recycledFileStream(
        () => openForRead(join(dir, "f.bin"), { reuse: false }),
        pool,
      )) {
        copies.push(Buffer.from(chunk as Buffer));
        pool.release(chunk as Buffer);
      }
      expect(Buffer.concat(copies).equals(bytes)).toBe(true);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
