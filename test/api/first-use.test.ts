import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { SettingsService } from "../../src/gen/attic/v1/settings_pb.ts";
import { upload } from "../helpers/files.ts";
import { missing } from "../helpers/programs.ts";
import { ADMIN_PASSWORD, startServer, type TestServer } from "../helpers/server.ts";
import { connectJson, rpcClient } from "../rpc/clients.ts";

/**
 * The RPC stack and WebDAV are built on their first request, not at start
 * (src/platform/lazy.ts), and ffmpeg is detected after listening. Each case
 * starts a new server whose first request of that kind arrives at once
 * (several at once, while the subsystem is still loading): every one must
 * get the answer it always got.
 */
describe("subsystems loaded on first use", () => {
  let s: TestServer | undefined;
  afterEach(async () => {
    await s?.close();
    s = undefined;
  });

  it("RPC: concurrent first calls over Connect, gRPC and an unknown method all answer as before", async () => {
    s = await startServer();
    const token = await s.login();
    const [anonymous, listed, settings, unknown] = await Promise.all([
      connectJson(s.url, "attic.v1.FileService/ListFiles", { limit: 10 }),
      connectJson(s.url, "attic.v1.FileService/ListFiles", { limit: 10 }, token),
      rpcClient(s.url, SettingsService, token, "grpc-h2c").getUserSettings({}),
      connectJson(s.url, "attic.v1.FileService/NoSuchMethod", {}, token),
    ]);
    expect(anonymous.status).toBe(401);
    expect(anonymous.body.code).toBe("unauthenticated");
    expect(anonymous.headers.get("attic-error-code")).toBe("ERR_UNAUTHENTICATED");
    expect(anonymous.headers.get("x-content-type-options")).toBe("nosniff");
    expect(listed.status).toBe(200);
    expect(Array.isArray(listed.body.files)).toBe(true);
    expect(settings.settings).toBeDefined();
    // No such method: the REST app's JSON 404, as when Connect handed it over at once.
    expect(unknown.status).toBe(404);
    expect(unknown.body.error.code).toBe("ERR_NOT_FOUND");
  });

  it("WebDAV: concurrent first requests are answered with their DAV headers, credentials checked", async () => {
    s = await startServer();
    const url = `${s.url}/dav/`;
    const admin = `Basic ${Buffer.from(`admin:${ADMIN_PASSWORD}`).toString("base64")}`;
    const [options, anonymous, listing, bare] = await Promise.all([
      fetch(url, { method: "OPTIONS" }),
      fetch(url, { method: "PROPFIND", headers: { depth: "1" } }),
      fetch(url, { method: "PROPFIND", headers: { depth: "1", authorization: admin } }),
      fetch(`${s.url}/dav`, { method: "PROPFIND", headers: { depth: "0", authorization: admin } }),
    ]);
    expect(options.status).toBe(200);
    expect(options.headers.get("dav")).toBe("1, 2");
    expect(anonymous.status).toBe(401);
    expect(anonymous.headers.get("www-authenticate")).toMatch(/^Basic realm="Attic"/);
    expect(listing.status).toBe(207);
    expect(await listing.text()).toContain("<D:multistatus");
    expect(bare.status).toBe(207);
    for (const r of [options, anonymous, bare]) await r.arrayBuffer().catch(() => undefined);
  });

  it.skipIf(missing("first media request", "ffmpeg", "ffprobe"))(
    "media: a probe right after start waits for the ffmpeg detection instead of saying it is missing",
    async () => {
      const dir = mkdtempSync(join(tmpdir(), "attic-first-media-"));
      try {
        const clip = join(dir, "clip.mp4");
        execFileSync("ffmpeg", [
          ...["-v", "error", "-f", "lavfi", "-i", "testsrc=duration=1:size=160x120:rate=10"],
          ...["-c:v", "libx264", "-pix_fmt", "yuv420p", clip],
        ]);
        const first = await startServer({}, { keepDataDir: join(dir, "data") });
        const token = await first.login();
        const id = (await upload(first, token, "clip.mp4", readFileSync(clip))).body.id as string;
        await first.close();
        // Same data dir and keys: the token still holds, so the probe is the new server's first request.
        s = await startServer({}, { keepDataDir: join(dir, "data") });
        const health = await s.api("GET", "/health");
        expect(health.body.details.media).toEqual({ status: "ok", message: "checking for ffmpeg" });
        const info = await s.api("GET", `/api/v1/files/${id}/media-info`, { token });
        expect(info.status).toBe(200);
        expect(info.body.duration_seconds).toBeGreaterThan(0.5);
        const after = await s.api("GET", "/health");
        expect(after.body.details.media).toMatchObject({ status: "ok", ffprobe: expect.any(String) });
      } finally {
        await s?.close();
        s = undefined;
        rmSync(dir, { recursive: true, force: true });
      }
    },
  );
});
