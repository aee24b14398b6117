import { createHash, randomBytes } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { BlobStore } from "../../src/platform/blobstore.ts";

/** A finished resumable upload becomes a blob without a second copy of its bytes. */
describe("BlobStore.adopt", () => {
  const dirs: string[] = [];
  afterEach(() => {
    for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
  });
  const store = () => {
    const dir = mkdtempSync(join(tmpdir(), "attic-adopt-"));
    dirs.push(dir);
    return { dir, blobs: new BlobStore(dir) };
  };

  it("links the file into the store (same inode), hashes it, and leaves the original in place", async () => {
    const { dir, blobs } = store();
    const data = randomBytes(3 * 1024 * 1024 + 17);
    const source = join(dir, "finished-upload");
    writeFileSync(source, data);
    const staged = await blobs.adopt(source);
    expect(staged.hash).toBe(createHash("sha256").update(data).digest("hex"));
    expect(staged.size).toBe(data.length);
    expect(staged.head.equals(data.subarray(0, 4100))).toBe(true);
    expect(statSync(staged.tempPath).ino).toBe(statSync(source).ino);
    await blobs.commit(staged);
    blobs.release(staged.hash);
    const stored = blobs.pathOf(staged.hash);
    expect(statSync(stored).ino).toBe(statSync(source).ino);
    expect(readFileSync(source).equals(data)).toBe(true);
    expect(statSync(stored).mode & 0o777).toBe(0o640);
  });

  it("refuses a file over the size limit with 413 and keeps no temp link", async () => {
    const { dir, blobs } = store();
    const source = join(dir, "too-big");
    writeFileSync(source, randomBytes(2048));
    await expect(blobs.adopt(source, { maxBytes: 1024 })).rejects.toMatchObject({
      code: "PAYLOAD_TOO_LARGE",
    });
    expect(blobs.sweepTemp()).toBe(0);
  });
});
