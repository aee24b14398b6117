import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { upload } from "../helpers/files.ts";
import { slowPng } from "../helpers/images.ts";
import { missing } from "../helpers/programs.ts";
import { startServer, type TestServer } from "../helpers/server.ts";

/** Image thumbnails of images past the decompression-bomb guard, and of broken images. */
describe.skipIf(missing("image thumbnails", "ffmpeg"))("image thumbnails: limits and broken files", () => {
  let s: TestServer;
  let token: string;
  let work: string;
  const image = (name: string, size: string, extra: string[] = []) => {
    const path = join(work, name);
    execFileSync("ffmpeg", [
      ...["-v", "error", "-f", "lavfi", "-i", `color=c=gray:s=${size}`, "-frames:v", "1"],
      ...extra,
      path,
    ]);
    return readFileSync(path);
  };
  const thumb = (id: string) => s.api("GET", `/api/v1/files/${id}/thumbnail?size=128`, { token });

  beforeAll(async () => {
    s = await startServer();
    token = await s.login();
    work = mkdtempSync(join(tmpdir(), "attic-thumbs-"));
  });
  afterAll(async () => {
    await s.close();
    rmSync(work, { recursive: true, force: true });
  });

  it("answers 413 naming the 100-megapixel limit for a larger photo, not 'could not be read'", async () => {
    // The size of a Fujifilm GFX100's photos: 11648×8736, 101.8 megapixels.
    const big = image("gfx.png", "11648x8736", ["-pix_fmt", "gray", "-compression_level", "1"]);
    const up = await upload(s, token, "gfx.png", big);
    expect(up.status, up.text).toBe(201);
    const r = await thumb(up.body.id);
    expect(r.status, r.text).toBe(413);
    expect(r.body.error.code).toBe("ERR_PAYLOAD_TOO_LARGE");
    expect(r.body.error.message).toMatch(/100 megapixels/);
    expect(r.body.error.message).not.toMatch(/could not be read/);
    // The file itself is fine: it downloads whole.
    const dl = await fetch(`${s.url}/api/v1/files/${up.body.id}/download`, {
      headers: { authorization: `Bearer ${token}` },
    });
    expect(Buffer.from(await dl.arrayBuffer()).equals(big)).toBe(true);
  });

  it("answers 400 for a truncated or an empty image, and goes on making thumbnails", async () => {
    const photo = image("ok.jpg", "640x480");
    const cut = await upload(s, token, "cut.jpg", photo.subarray(0, 600));
    const empty = await upload(s, token, "empty.png", new Uint8Array(0));
    for (const up of [cut, empty]) {
      const r = await thumb(up.body.id);
      expect([up.body.name, r.status, r.body.error?.code]).toEqual([up.body.name, 400, "ERR_VALIDATION"]);
    }
    const whole = await upload(s, token, "ok.jpg", photo);
    expect((await thumb(whole.body.id)).status).toBe(200);
  });
});

/** sharp's timeout: one image cannot hold libvips' threads past media.thumbnail_timeout_seconds. */
describe("image thumbnails: a time limit per image", () => {
  let s: TestServer;
  let token: string;
  beforeAll(async () => {
    s = await startServer({ media: { thumbnail_timeout_seconds: 1 } });
    token = await s.login();
  });
  afterAll(async () => {
    await s.close();
  });

  it("answers 413 for an image that takes longer to decode, and goes on making thumbnails", async () => {
    // ~300 KiB that take libvips seconds (see slowPng): a thumbnail of it ran to the end, however long.
    const slow = await upload(s, token, "slow.png", await slowPng());
    expect(slow.status, slow.text).toBe(201);
    const r = await s.api("GET", `/api/v1/files/${slow.body.id}/thumbnail?size=128`, { token });
    expect([r.status, r.body.error?.code], r.text).toEqual([413, "ERR_PAYLOAD_TOO_LARGE"]);
    expect(r.body.error.message).toMatch(/longer than 1 s/);
    expect(r.body.error.details).toEqual({ timeout_seconds: 1 });
    // A small image right after: its thumbnail is made.
    const small = await upload(s, token, "small.png", await tinyPng());
    const ok = await s.api("GET", `/api/v1/files/${small.body.id}/thumbnail?size=128`, { token });
    expect(ok.status, ok.text).toBe(200);
  }, 60_000);
});

/** A valid 2×1 PNG, made by sharp. */
async function tinyPng(): Promise<Buffer> {
  const sharp = (await import("sharp")).default;
  return sharp({ create: { width: 2, height: 1, channels: 3, background: "red" } })
    .png()
    .toBuffer();
}
