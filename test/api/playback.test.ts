import { execFileSync } from "node:child_process";
import { readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import sharp from "sharp";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createUser, register } from "../helpers/accounts.ts";
import { upload } from "../helpers/files.ts";
import { missing } from "../helpers/programs.ts";
import { startServer, type TestServer } from "../helpers/server.ts";
import { folders, hostTree, waitFor } from "./watched.helpers.ts";

describe("playback positions", () => {
  let s: TestServer;
  let token: string;
  let root: string;
  const ids: Record<string, string> = {};
  let dirId: string;

  beforeAll(async () => {
    s = await startServer({ auth: { registration_enabled: true } });
    token = await s.login();
    root = hostTree({ "ep1.mkv": "1", "ep2.mkv": "2", "ep3.mkv": "3", "movie.mp4": "m" });
    const f = folders(s, token);
    const created = await f.create({ name: "Videos", path: root });
    await f.settled(created.body.id);
    dirId = created.body.directory_id;
    const list = await s.api("GET", `/api/v1/watched-folders/${created.body.id}/files`, { token });
    for (const file of list.body.files) ids[file.name] = file.id;
  });
  afterAll(async () => {
    await s.close();
    rmSync(root, { recursive: true, force: true });
  });

  const put = (id: string, body: unknown, t = token) =>
    s.api("PUT", `/api/v1/playback-positions/${id}`, { token: t, body });

  it("saves, reads back (both routes), overwrites and forgets a position", async () => {
    const id = ids["ep1.mkv"]!;
    expect((await s.api("GET", `/api/v1/playback-positions/${id}`, { token })).status).toBe(404);
    const saved = await put(id, { position_seconds: 61.5, duration_seconds: 1200 });
    expect(saved.status).toBe(200);
    expect(saved.body).toMatchObject({
      file_id: id,
      position_seconds: 61.5,
      duration_seconds: 1200,
      watched: false,
    });
    const again = await s.api("PUT", `/api/v1/files/${id}/playback-position`, {
      token,
      body: { position_seconds: 1190, duration_seconds: 1200 },
    });
    expect(again.body.watched).toBe(true);
    const got = await s.api("GET", `/api/v1/files/${id}/playback-position`, { token });
    expect(got.body).toMatchObject({ position_seconds: 1190, watched: true });
    expect(Date.parse(got.body.last_updated)).not.toBeNaN();
    expect((await s.api("DELETE", `/api/v1/playback-positions/${id}`, { token })).body).toEqual({
      success: true,
    });
    expect((await s.api("GET", `/api/v1/playback-positions/${id}`, { token })).status).toBe(404);
    expect((await s.api("DELETE", `/api/v1/playback-positions/${id}`, { token })).status).toBe(404);
  });

  it("validates the body and refuses directories and unknown files", async () => {
    const id = ids["ep2.mkv"]!;
    const bad = [
      {},
      { position_seconds: -1, duration_seconds: 10 },
      { position_seconds: 11, duration_seconds: 10 },
      { position_seconds: "5", duration_seconds: 10 },
      { position_seconds: 1e308 * 10, duration_seconds: 10 },
      { position_seconds: 5, duration_seconds: -3 },
    ];
    for (const body of bad) {
      const r = await put(id, body);
      expect([body, r.status, r.body.error?.code]).toEqual([body, 400, "ERR_VALIDATION"]);
    }
    expect((await put(id, { position_seconds: 30 })).body.duration_seconds).toBe(0);
    expect((await put(dirId, { position_seconds: 1, duration_seconds: 2 })).status).toBe(400);
    const missing = await put("0190a0b0-0000-7000-8000-000000000000", {
      position_seconds: 1,
      duration_seconds: 2,
    });
    expect([missing.status, missing.body.error.code]).toEqual([404, "ERR_FILE_NOT_FOUND"]);
    expect((await put("nope", { position_seconds: 1, duration_seconds: 2 })).status).toBe(400);
    expect((await s.api("GET", `/api/v1/playback-positions/${ids["ep3.mkv"]}`)).status).toBe(401);
  });

  it("lists continue watching: started, unfinished, newest first, per user", async () => {
    await put(ids["ep3.mkv"]!, { position_seconds: 100, duration_seconds: 1000 });
    await put(ids["movie.mp4"]!, { position_seconds: 980, duration_seconds: 1000 }); // watched
    await put(ids["ep1.mkv"]!, { position_seconds: 0, duration_seconds: 1000 }); // not started
    await put(ids["ep2.mkv"]!, { position_seconds: 12, duration_seconds: 1000 });
    const r = await s.api("GET", "/api/v1/playback-positions", { token });
    expect(r.status).toBe(200);
    expect(r.body.items.map((i: { file: { name: string } }) => i.file.name)).toEqual(["ep2.mkv", "ep3.mkv"]);
    expect(r.body.items[0]).toMatchObject({
      position_seconds: 12,
      file: { path: "/Videos/ep2.mkv", type: "file" },
    });
    expect((await s.api("GET", "/api/v1/playback-positions?limit=1", { token })).body.items).toHaveLength(1);
    expect((await s.api("GET", "/api/v1/playback-positions?limit=0", { token })).status).toBe(400);

    const member = await createUser(s, token, "viewer-one");
    expect((await s.api("GET", "/api/v1/playback-positions", { token: member.token })).body.items).toEqual(
      [],
    );
    expect(
      (await s.api("GET", `/api/v1/playback-positions/${ids["ep3.mkv"]}`, { token: member.token })).status,
    ).toBe(404);
    await put(ids["ep3.mkv"]!, { position_seconds: 5, duration_seconds: 1000 }, member.token);
    expect(
      (await s.api("GET", `/api/v1/playback-positions/${ids["ep3.mkv"]}`, { token })).body.position_seconds,
    ).toBe(100);
  });

  it("answers 404 for another organization's file", async () => {
    const other = await register(s, "playback-stranger", { organization_name: "Far Away" });
    const id = ids["ep3.mkv"]!;
    for (const [method, path] of [
      ["GET", `/api/v1/playback-positions/${id}`],
      ["GET", `/api/v1/files/${id}/playback-position`],
      ["DELETE", `/api/v1/playback-positions/${id}`],
    ] as const) {
      const r = await s.api(method, path, { token: other.token });
      expect([path, r.status, r.body.error.code]).toEqual([path, 404, "ERR_FILE_NOT_FOUND"]);
    }
    expect((await put(id, { position_seconds: 1, duration_seconds: 2 }, other.token)).status).toBe(404);
  });
});

describe.skipIf(missing("media info", "ffmpeg", "ffprobe"))("media info", () => {
  let s: TestServer;
  let token: string;
  let root: string;
  const ids: Record<string, string> = {};

  beforeAll(async () => {
    s = await startServer();
    token = await s.login();
    root = hostTree({
      "notes.txt": "text",
      "broken.mp4": "not a video",
      "evil.svg": '<svg xmlns="http://www.w3.org/2000/svg"><image href="http://127.0.0.1:9/x.png"/></svg>',
    });
    execFileSync("ffmpeg", [
      "-v",
      "error",
      "-f",
      "lavfi",
      "-i",
      "testsrc=size=800x600",
      "-frames:v",
      "1",
      join(root, "photo.png"),
    ]);
    execFileSync("ffmpeg", [
      ...["-v", "error", "-f", "lavfi", "-i", "testsrc=duration=2:size=320x240:rate=10"],
      ...["-f", "lavfi", "-i", "sine=frequency=440:duration=2", "-c:v", "libx264", "-pix_fmt", "yuv420p"],
      ...["-c:a", "aac", "-shortest", join(root, "clip.mp4")],
    ]);
    const f = folders(s, token);
    const created = await f.create({ name: "Media", path: root });
    await f.settled(created.body.id);
    // Hashed too: a watched file's ETag changes from its size and mtime to its hash once the
    // background hasher reaches it, and the thumbnail's ETag with it.
    const list = await waitFor(
      () => s.api("GET", `/api/v1/watched-folders/${created.body.id}/files`, { token }),
      (r) => r.body.files.length > 0 && r.body.files.every((file: { hash: string | null }) => file.hash),
    );
    for (const file of list.body.files) ids[file.name] = file.id;
  });
  afterAll(async () => {
    await s.close();
    rmSync(root, { recursive: true, force: true });
  });

  it("reports ffmpeg in /health and probes duration, codecs and resolution", async () => {
    const health = await waitFor(
      () => s.api("GET", "/health"),
      (h) => h.body.details.media?.message !== "checking for ffmpeg",
    );
    expect(health.body.details.media).toMatchObject({ status: "ok", ffprobe: expect.any(String) });
    const r = await s.api("GET", `/api/v1/files/${ids["clip.mp4"]}/media-info`, { token });
    expect(r.status).toBe(200);
    expect(r.body.duration_seconds).toBeGreaterThan(1.5);
    expect(r.body.duration_seconds).toBeLessThan(2.5);
    expect(r.body.video).toEqual({ codec: "h264", width: 320, height: 240 });
    expect(r.body.audio).toMatchObject({ codec: "aac" });
    expect((await s.api("GET", `/api/v1/files/${ids["notes.txt"]}/media-info`, { token })).status).toBe(400);
    expect((await s.api("GET", `/api/v1/files/${ids["broken.mp4"]}/media-info`, { token })).status).toBe(400);
  });

  it("makes WebP thumbnails of images and video posters, cached with an ETag; never from SVG", async () => {
    const url = (id: string | undefined, size = "") => `/api/v1/files/${id}/thumbnail${size}`;
    const photo = await fetch(s.url + url(ids["photo.png"], "?size=128"), {
      headers: { authorization: `Bearer ${token}` },
    });
    expect(photo.status).toBe(200);
    expect(photo.headers.get("content-type")).toBe("image/webp");
    const meta = await sharp(Buffer.from(await photo.arrayBuffer())).metadata();
    expect([meta.format, meta.width, meta.height]).toEqual(["webp", 128, 96]);
    const etag = photo.headers.get("etag")!;
    const again = await fetch(s.url + url(ids["photo.png"], "?size=128"), {
      headers: { authorization: `Bearer ${token}`, "if-none-match": etag },
    });
    expect(again.status).toBe(304);
    const poster = await fetch(s.url + url(ids["clip.mp4"]), {
      headers: { authorization: `Bearer ${token}` },
    });
    expect(poster.status).toBe(200);
    const pm = await sharp(Buffer.from(await poster.arrayBuffer())).metadata();
    expect([pm.width, pm.height]).toEqual([256, 192]);
    for (const [name, q] of [
      ["evil.svg", ""],
      ["notes.txt", ""],
      ["photo.png", "?size=100"],
      ["broken.mp4", ""],
    ] as const) {
      const r = await s.api("GET", url(ids[name], q), { token });
      expect([name, r.status, r.body.error?.code]).toEqual([name, 400, "ERR_VALIDATION"]);
    }
    expect((await s.api("GET", url(ids["photo.png"]))).status).toBe(401);
  });

  it("never lets an upload named .mp4 that is an HLS playlist make ffmpeg read another file", async () => {
    // The attacker's upload: a playlist whose one segment is a video elsewhere on the host.
    const victim = hostTree({});
    execFileSync("ffmpeg", [
      ...["-v", "error", "-f", "lavfi", "-i", "testsrc=duration=2:size=320x240:rate=10"],
      ...["-c:v", "libx264", "-pix_fmt", "yuv420p", "-f", "mpegts", join(victim, "private.ts")],
    ]);
    const playlist = [
      "#EXTM3U",
      "#EXT-X-VERSION:3",
      "#EXT-X-TARGETDURATION:2",
      "#EXTINF:2.0,",
      `file://${join(victim, "private.ts")}`,
      "#EXT-X-ENDLIST",
      "",
    ].join("\n");
    try {
      for (const name of ["holiday.mp4", "holiday.m3u8", "holiday.mkv"]) {
        const up = await upload(s, token, name, playlist, { type: "video/mp4" });
        expect(up.status).toBe(201);
        const info = await s.api("GET", `/api/v1/files/${up.body.id}/media-info`, { token });
        expect([name, info.status, info.body.duration_seconds]).toEqual([name, 400, undefined]);
        const thumb = await s.api("GET", `/api/v1/files/${up.body.id}/thumbnail`, { token });
        expect([name, thumb.status]).toEqual([name, 400]);
      }
      // A concat list gets no further.
      const concat = await upload(
        s,
        token,
        "list.mp4",
        `ffconcat version 1.0\nfile '${join(victim, "private.ts")}'\n`,
      );
      expect((await s.api("GET", `/api/v1/files/${concat.body.id}/media-info`, { token })).status).toBe(400);
    } finally {
      rmSync(victim, { recursive: true, force: true });
    }
  });

  it("probes each file once however many ask at once, and remembers a failure briefly", async () => {
    const probes = async (result: string) => {
      const text = await (await fetch(`${s.url}/metrics`)).text();
      return Number(
        new RegExp(`attic_media_probes_total\\{result="${result}"\\} (\\d+)`).exec(text)?.[1] ?? 0,
      );
    };
    const clip = join(root, "clip.mp4");
    const copy = await upload(s, token, "copy.mp4", new Uint8Array(readFileSync(clip)), {
      type: "video/mp4",
    });
    const before = await probes("ok");
    const all = await Promise.all(
      Array.from({ length: 20 }, () => s.api("GET", `/api/v1/files/${copy.body.id}/media-info`, { token })),
    );
    expect(all.map((r) => r.status)).toEqual(Array(20).fill(200));
    expect((await probes("ok")) - before).toBe(1);
    const bad = await upload(s, token, "bad.mp4", new Uint8Array(readFileSync(clip)).subarray(0, 4000));
    const failedBefore = await probes("failed");
    for (let i = 0; i < 5; i++) {
      expect((await s.api("GET", `/api/v1/files/${bad.body.id}/media-info`, { token })).status).toBe(400);
    }
    expect((await probes("failed")) - failedBefore).toBe(1);
  });

  it("keeps working without ffmpeg and says so in /health", async () => {
    const bare = await startServer({
      media: { ffprobe_path: "/nonexistent/ffprobe", ffmpeg_path: "/nonexistent/ffmpeg" },
    });
    try {
      const h = await waitFor(
        () => bare.api("GET", "/health"),
        (x) => x.body.details.media?.status === "degraded",
      );
      expect(h.status).toBe(200);
      expect(h.body.details.media.message).toMatch(/ffmpeg missing/);
    } finally {
      await bare.close();
    }
  });
});
