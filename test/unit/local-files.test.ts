import { execFileSync } from "node:child_process";
import { closeSync, constants, mkdtempSync, openSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { readBytes, readStream, readUtf8 } from "../../src/platform/local-files.ts";

describe("local file reads", () => {
  const dir = mkdtempSync(join(tmpdir(), "attic-local-files-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("read regular files whole and by range", async () => {
    writeFileSync(join(dir, "a.txt"), "hello world");
    expect(await readUtf8(join(dir, "a.txt"))).toBe("hello world");
    expect((await readBytes(join(dir, "a.txt"))).toString()).toBe("hello world");
    const parts: Buffer[] = [];
    for await (const chunk of readStream(join(dir, "a.txt"), { start: 6, end: 10 }))
      parts.push(chunk as Buffer);
    expect(Buffer.concat(parts).toString()).toBe("world");
  });

  it("never wait on a FIFO swapped in for a host file", async () => {
    const fifo = join(dir, "fifo");
    execFileSync("mkfifo", [fifo]);
    try {
      expect(await readUtf8(fifo)).toBe("");
      expect((await readBytes(fifo)).length).toBe(0);
      const parts: Buffer[] = [];
      for await (const chunk of readStream(fifo)) parts.push(chunk as Buffer);
      expect(parts).toEqual([]);
    } finally {
      try {
        // Had an open blocked, a writer lets its thread go.
        closeSync(openSync(fifo, constants.O_WRONLY | constants.O_NONBLOCK));
      } catch {
        // ENXIO: no reader waits on it
      }
    }
  });
});
