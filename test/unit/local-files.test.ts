import { execFileSync } from "node:child_process";
import { closeSync, constants, mkdtempSync, openSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { fileStream, readUpTo } from "../../src/platform/local-files.ts";
import { openForRead } from "../../src/platform/open-files.ts";

describe("local file reads", () => {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), "attic-local-files-")));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const open = (name: string) => () => openForRead(join(dir, name), { reuse: false });

  it("read opened files whole (bounded) and by range", async () => {
    writeFileSync(join(dir, "a.txt"), "hello world");
    const file = await open("a.txt")();
    expect((await readUpTo(file, 100)).toString()).toBe("hello world");
    // One byte past the bound tells the caller the file is larger than it allows.
    expect((await readUpTo(file, 4)).toString()).toBe("hello");
    file.release();
    const parts: Buffer[] = [];
    for await (const chunk of fileStream(open("a.txt"), { start: 6, end: 10 })) parts.push(chunk as Buffer);
    expect(Buffer.concat(parts).toString()).toBe("world");
  });

  it("never wait on a FIFO swapped in for a host file: it is refused as gone", async () => {
    const fifo = join(dir, "fifo");
    execFileSync("mkfifo", [fifo]);
    try {
      await expect(open("fifo")()).rejects.toMatchObject({ code: "ENOENT" });
      const parts: Buffer[] = [];
      await expect(
        (async () => {
          for await (const chunk of fileStream(open("fifo"))) parts.push(chunk as Buffer);
        })(),
      ).rejects.toMatchObject({ code: "ENOENT" });
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
