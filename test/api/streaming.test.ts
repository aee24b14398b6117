import { execFile, execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PlaybackPositionService } from "../../src/gen/attic/v1/playback_position_pb.ts";
import { register } from "../helpers/accounts.ts";
import { upload } from "../helpers/files.ts";
import { missing } from "../helpers/programs.ts";
import { startServer, type TestServer } from "../helpers/server.ts";
import { rpcClient } from "../rpc/clients.ts";

/** Runs ffmpeg quietly with `args` (test media only). */
const ffmpeg = (...args: string[]) => execFileSync("ffmpeg", ["-v", "error", "-y", ...args]);

/**
 * ffmpeg reading from the test's own server: asynchronous, since the server
 * runs in this process and a synchronous child would block it.
 */
const ffmpegFromServer = (...args: string[]) =>
  promisify(execFile)("ffmpeg", ["-v", "error", "-y", ...args], { timeout: 90_000 });

/** ffprobe's JSON for a file or URL. */
function probe(target: string): {
  format: { duration?: string };
  streams: { codec_name: string; codec_type: string; start_time?: string; tags?: { language?: string } }[];
} {
  const out = execFileSync("ffprobe", [
    ...["-v", "error", "-print_format", "json", "-show_format", "-show_streams", target],
  ]);
  return JSON.parse(out.toString());
}

/**
 * Real media made by ffmpeg: an HEVC + two AC3 tracks MKV with an embedded
 * subtitle, an H.264/AAC MKV (remux), an H.264/AAC MP4 (direct), a FLAC
 * with tags and cover art.
 */
function makeMedia(dir: string): void {
  const srt = join(dir, "embedded.srt");
  writeFileSync(
    srt,
    "1\n00:00:01,000 --> 00:00:04,000\nHello embedded\n\n2\n00:00:20,000 --> 00:00:23,000\nHalfway\n",
  );
  ffmpeg(
    ...["-f", "lavfi", "-i", "testsrc2=size=320x240:rate=25:duration=40"],
    ...["-f", "lavfi", "-i", "sine=frequency=440:duration=40"],
    ...["-f", "lavfi", "-i", "sine=frequency=1000:duration=40"],
    ...["-i", srt, "-map", "0", "-map", "1", "-map", "2", "-map", "3"],
    ...["-c:v", "libx265", "-preset", "ultrafast", "-x265-params", "log-level=error"],
    ...["-c:a", "ac3", "-c:s", "srt"],
    ...[
      "-metadata:s:a:0",
      "language=eng",
      "-metadata:s:a:1",
      "language=fre",
      "-metadata:s:s:0",
      "language=eng",
    ],
    join(dir, "movie.mkv"),
  );
  ffmpeg(
    ...["-f", "lavfi", "-i", "testsrc2=size=320x240:rate=25:duration=30"],
    ...["-f", "lavfi", "-i", "sine=frequency=440:duration=30"],
    ...["-c:v", "libx264", "-preset", "ultrafast", "-g", "50", "-c:a", "aac", "-shortest"],
    join(dir, "h264.mkv"),
  );
  ffmpeg(
    ...["-f", "lavfi", "-i", "testsrc2=size=320x240:rate=25:duration=8"],
    ...["-f", "lavfi", "-i", "sine=frequency=440:duration=8"],
    ...["-c:v", "libx264", "-preset", "ultrafast", "-c:a", "aac", "-shortest", "-movflags", "+faststart"],
    join(dir, "clip.mp4"),
  );
  ffmpeg(...["-f", "lavfi", "-i", "color=c=red:size=64x64", "-frames:v", "1"], join(dir, "cover.png"));
  ffmpeg(
    ...["-f", "lavfi", "-i", "sine=frequency=440:duration=3", "-i", join(dir, "cover.png")],
    ...["-map", "0", "-map", "1", "-c:a", "flac", "-c:v", "png", "-disposition:v", "attached_pic"],
    ...["-metadata", "title=Song Title", "-metadata", "artist=The Artist", "-metadata", "album=The Album"],
    ...["-metadata", "track=7", "-metadata", "date=2003"],
    join(dir, "song.flac"),
  );
  ffmpeg(...["-f", "lavfi", "-i", "sine=frequency=440:duration=5", "-c:a", "ac3"], join(dir, "tone.ac3"));
  // Written to a pipe: Matroska without a duration (ffprobe says N/A), as some recorders leave files.
  writeFileSync(
    join(dir, "nodur.mkv"),
    execFileSync("ffmpeg", [
      ...["-v", "error", "-f", "lavfi", "-i", "testsrc2=size=160x120:rate=10:duration=3"],
      ...["-c:v", "mpeg4", "-f", "matroska", "pipe:1"],
    ]),
  );
}

describe.skipIf(missing("playback: direct, remux, transcode", "ffmpeg", "ffprobe"))(
  "playback: direct, remux, transcode, subtitles, audio tracks",
  () => {
    let s: TestServer;
    let token: string;
    let media: string;
    const ids: Record<string, string> = {};

    beforeAll(async () => {
      media = mkdtempSync(join(tmpdir(), "attic-media-"));
      makeMedia(media);
      s = await startServer({ auth: { registration_enabled: true } });
      token = await s.login();
      for (const name of ["movie.mkv", "h264.mkv", "clip.mp4", "song.flac", "tone.ac3", "nodur.mkv"]) {
        const res = await upload(s, token, name, readFileSync(join(media, name)));
        expect(res.status, name).toBe(201);
        ids[name] = res.body.id;
      }
      // Sidecars next to the film: SubRip in Windows-1252 (an old file), and SSA/ASS.
      const latin = Buffer.from("1\r\n00:00:02,500 --> 00:00:05,000\r\n{\\an8}Caf\xe9 sidecar\r\n", "latin1");
      expect((await upload(s, token, "movie.en.srt", latin)).status).toBe(201);
      const ass = [
        "[Script Info]",
        "ScriptType: v4.00+",
        "",
        "[Events]",
        "Format: Layer, Start, End, Style, Name, MarginL, MarginR, MarginV, Effect, Text",
        "Dialogue: 0,0:00:03.00,0:00:06.00,Default,,0,0,0,,Styled line",
        "",
      ].join("\n");
      expect((await upload(s, token, "movie.fr.ass", ass)).status).toBe(201);
      // Not a sidecar of movie.mkv: another stem.
      expect((await upload(s, token, "movie2.srt", "1\n00:00:01,000 --> 00:00:02,000\nx\n")).status).toBe(
        201,
      );
    }, 120_000);
    afterAll(async () => {
      await s?.close();
      rmSync(media, { recursive: true, force: true });
    });

    const info = (id: string, query = "", t = token) =>
      s.api("GET", `/api/v1/files/${id}/playback-info${query}`, { token: t });

    it("decides per file and client: direct, remux, transcode", async () => {
      const mp4 = await info(ids["clip.mp4"]!);
      expect(mp4.status).toBe(200);
      expect(mp4.body).toMatchObject({ mode: "direct", video: { codec: "h264", width: 320, height: 240 } });
      expect(mp4.body.direct_url).toMatch(new RegExp(`^/api/v1/files/${ids["clip.mp4"]}/stream\\?st=`));
      // The direct URL plays with byte ranges and no header (a media element, VLC).
      const ranged = await fetch(`${s.url}${mp4.body.direct_url}`, { headers: { Range: "bytes=0-99" } });
      expect(ranged.status).toBe(206);
      expect((await ranged.arrayBuffer()).byteLength).toBe(100);

      const remux = await info(ids["h264.mkv"]!);
      expect(remux.body).toMatchObject({ mode: "remux", video: { codec: "h264" } });
      expect(remux.body.direct_url).toBeUndefined();

      const film = await info(ids["movie.mkv"]!);
      expect(film.body).toMatchObject({
        mode: "transcode",
        video: { codec: "hevc", width: 320, height: 240 },
      });
      expect(film.body.duration).toBeCloseTo(40, 0);
      expect(film.body.audio).toEqual([
        { index: 1, codec: "ac3", language: "eng", channels: 1, default: true, selected: true },
        { index: 2, codec: "ac3", language: "fre", channels: 1, default: false, selected: false },
      ]);
      // A client that says it plays AC-3 still gets the HEVC video converted (MPEG-TS HLS carries H.264).
      const ac3 = await info(ids["movie.mkv"]!, "?codecs=h264,aac,ac3&audio=2");
      expect(ac3.body.mode).toBe("transcode");
      expect(ac3.body.audio[1].selected).toBe(true);

      // Music: the browser plays FLAC as it is; audio it cannot play is converted.
      expect((await info(ids["song.flac"]!)).body).toMatchObject({ mode: "direct", video: null });
      expect((await info(ids["tone.ac3"]!)).body).toMatchObject({ mode: "transcode", video: null });
    });

    it("plays WAV (16- and 24-bit PCM) as it is: browsers decode it, converting would only lose quality", async () => {
      for (const pcm of ["pcm_s16le", "pcm_s24le"]) {
        const wav = join(media, `${pcm}.wav`);
        ffmpeg(...["-f", "lavfi", "-i", "sine=frequency=440:duration=3", "-c:a", pcm], wav);
        const up = await upload(s, token, `${pcm}.wav`, readFileSync(wav));
        const r = await info(up.body.id);
        expect(r.body, pcm).toMatchObject({ mode: "direct", audio: [{ codec: pcm }] });
        expect(r.body.direct_url).toMatch(/\/stream\?st=/);
      }
    });

    it("hands a file of unknown duration over as it is, saying why it cannot be converted", async () => {
      const r = await info(ids["nodur.mkv"]!);
      expect(r.status).toBe(200);
      expect(r.body).toMatchObject({ mode: "transcode", duration: null, hls_url: null });
      expect(r.body.reason).toMatch(/duration is unknown/);
      expect(r.body.direct_url).toMatch(/\/download\?st=/);
      expect((await fetch(`${s.url}${r.body.direct_url}`)).status).toBe(200);
    });

    it("refuses bad input at the boundary", async () => {
      const id = ids["movie.mkv"]!;
      expect((await info(id, "?codecs=h264,nonsense")).status).toBe(400);
      expect((await info(id, "?audio=9")).status).toBe(400);
      expect((await info(id, "?audio=-1")).status).toBe(400);
      const notMedia = await upload(s, token, "notes.txt", "hello");
      expect((await info(notMedia.body.id)).status).toBe(400);
      const sub = `/api/v1/files/${id}/subtitles`;
      expect((await s.api("GET", `${sub}/abc.vtt`, { token })).status).toBe(400);
      expect((await s.api("GET", `${sub}/7.vtt`, { token })).status).toBe(404);
      expect((await s.api("GET", `${sub}/1999.vtt`, { token })).status).toBe(404);
    });

    it("plays the HEVC/AC-3 film as H.264/AAC over HLS for its whole duration", async () => {
      const film = await info(ids["movie.mkv"]!);
      const out = join(media, "film-out.ts");
      // No header: the URL's stream token is the only credential, as for VLC or a TV.
      await ffmpegFromServer("-i", `${s.url}${film.body.hls_url}`, "-c", "copy", out);
      const p = probe(out);
      expect(p.streams.map((x) => x.codec_name).sort()).toEqual(["aac", "h264"]);
      expect(Number(p.format.duration)).toBeGreaterThan(39.5);
      expect(Number(p.format.duration)).toBeLessThan(40.6);
    }, 120_000);

    it("remuxes the H.264 MKV (video copied) for its whole duration", async () => {
      const remux = await info(ids["h264.mkv"]!);
      const out = join(media, "remux-out.ts");
      await ffmpegFromServer("-i", `${s.url}${remux.body.hls_url}`, "-c", "copy", out);
      const p = probe(out);
      expect(p.streams.map((x) => x.codec_name).sort()).toEqual(["aac", "h264"]);
      expect(Number(p.format.duration)).toBeGreaterThan(29.5);
    }, 120_000);

    it("also offers HLS of a file that plays directly (for outside players), video copied", async () => {
      const clip = await info(ids["clip.mp4"]!);
      const out = join(media, "clip-out.ts");
      await ffmpegFromServer("-i", `${s.url}${clip.body.hls_url}`, "-c", "copy", out);
      const p = probe(out);
      expect(p.streams.map((x) => x.codec_name).sort()).toEqual(["aac", "h264"]);
      expect(Number(p.format.duration)).toBeGreaterThan(7.5);
    }, 60_000);

    it("converts a video of odd width and height (H.264 4:2:0 needs even ones)", async () => {
      const odd = join(media, "odd.avi");
      ffmpeg(
        ...["-f", "lavfi", "-i", "testsrc2=size=320x240:rate=25:duration=4"],
        ...["-f", "lavfi", "-i", "sine=frequency=440:duration=4"],
        ...["-vf", "scale=321:241", "-c:v", "mpeg4", "-c:a", "mp3", "-shortest"],
        odd,
      );
      const up = await upload(s, token, "odd.avi", readFileSync(odd));
      const plan = await info(up.body.id);
      expect(plan.body).toMatchObject({ mode: "transcode", video: { width: 321, height: 241 } });
      const out = join(media, "odd-out.ts");
      await ffmpegFromServer("-i", `${s.url}${plan.body.hls_url}`, "-c", "copy", out);
      const p = probe(out);
      expect(Number(p.format.duration)).toBeGreaterThan(3.5);
      const video = (p.streams as { codec_type: string; width?: number; height?: number }[]).find(
        (x) => x.codec_type === "video",
      );
      expect([video?.width, video?.height]).toEqual([320, 240]);
    }, 60_000);

    it("plays a portrait phone video (H.264 .mov with a rotation) upright over HLS", async () => {
      const land = join(media, "land.mp4");
      ffmpeg(
        ...["-f", "lavfi", "-i", "testsrc2=size=320x240:rate=25:duration=4"],
        ...["-f", "lavfi", "-i", "sine=frequency=440:duration=4"],
        ...["-c:v", "libx264", "-preset", "ultrafast", "-c:a", "aac", "-shortest"],
        land,
      );
      const phone = join(media, "phone.mov");
      // What a phone writes: the picture stored landscape, a display matrix saying "turn it 90°".
      try {
        execFileSync(
          "ffmpeg",
          ["-v", "error", "-y", "-display_rotation:v:0", "90", "-i", land, "-c", "copy", phone],
          {
            stdio: "ignore",
          },
        );
      } catch {
        // ffmpeg before 6 has no -display_rotation; its rotate tag writes the same matrix.
        ffmpeg("-i", land, "-c", "copy", "-metadata:s:v:0", "rotate=90", phone);
      }
      const up = await upload(s, token, "phone.mov", readFileSync(phone));
      expect(up.status).toBe(201);
      const plan = await info(up.body.id);
      expect(plan.status).toBe(200);
      // MPEG-TS has nowhere to keep the rotation: copying the video would show it on its side.
      expect(plan.body.mode).toBe("transcode");
      expect(await (await fetch(`${s.url}${plan.body.hls_url}`)).text()).toContain("RESOLUTION=240x320");
      const out = join(media, "phone-out.ts");
      await ffmpegFromServer("-i", `${s.url}${plan.body.hls_url}`, "-c", "copy", out);
      const video = (probe(out).streams as { codec_type: string; width?: number; height?: number }[]).find(
        (x) => x.codec_type === "video",
      );
      expect([video?.width, video?.height]).toEqual([240, 320]);
    }, 60_000);

    it("seeks: a far segment comes first, starts at its time, and carries the chosen audio track", async () => {
      const film = await info(ids["movie.mkv"]!, "?audio=2");
      expect(film.body.hls_url).toContain("audio=2");
      const master = await fetch(`${s.url}${film.body.hls_url}`);
      expect(master.headers.get("content-type")).toBe("application/vnd.apple.mpegurl");
      const masterText = await master.text();
      expect(masterText).toContain('CODECS="avc1.640028,mp4a.40.2"');
      const variantPath = masterText.split("\n").find((l) => l.startsWith("t/"))!;
      const variantUrl = new URL(variantPath, `${s.url}${film.body.hls_url}`);
      const playlist = await (await fetch(variantUrl)).text();
      expect(playlist).toContain("#EXT-X-ENDLIST");
      const segments = playlist.split("\n").filter((l) => l.startsWith("seg-"));
      expect(segments).toHaveLength(14);
      // Segment 10 of a conversion nobody started: ffmpeg starts at 30 s, not at 0.
      const seg5 = await fetch(new URL(segments[10]!, variantUrl));
      expect(seg5.status).toBe(200);
      expect(seg5.headers.get("content-type")).toBe("video/mp2t");
      const file = join(media, "seg5.ts");
      writeFileSync(file, Buffer.from(await seg5.arrayBuffer()));
      const p = probe(file);
      const video = p.streams.find((x) => x.codec_type === "video")!;
      const audio = p.streams.find((x) => x.codec_type === "audio")!;
      expect(video.codec_name).toBe("h264");
      // Segment 0, made by a second run from the start: the two runs share one timeline (MPEG-TS adds a constant delay; B-frames delay the very first picture by a frame or two).
      const seg0 = join(media, "seg0.ts");
      writeFileSync(seg0, Buffer.from(await (await fetch(new URL(segments[0]!, variantUrl))).arrayBuffer()));
      const first = probe(seg0).streams.find((x) => x.codec_type === "video")!;
      expect(Number(video.start_time) - Number(first.start_time)).toBeCloseTo(30, 0);
      expect(audio.tags?.language).toBe("fre");
      // Segments carry no credential of their own: the token in the path is required.
      const forged = new URL(segments[10]!, variantUrl).href.replace(/\/t\/[^/]+\//, "/t/forged/");
      expect((await fetch(forged)).status).toBe(401);
    }, 120_000);

    it("serves embedded and sidecar subtitles as WebVTT", async () => {
      const film = await info(ids["movie.mkv"]!);
      const subs = film.body.subtitles as { index: number; source: string; language?: string; url: string }[];
      expect(subs.map((x) => [x.index, x.source, x.language])).toEqual([
        [3, "embedded", "eng"],
        [1000, "sidecar", "en"],
        [1001, "sidecar", "fr"],
      ]);
      const texts = await Promise.all(
        subs.map(async (x) => {
          const res = await fetch(`${s.url}${x.url}`);
          expect(res.status).toBe(200);
          expect(res.headers.get("content-type")).toMatch(/^text\/vtt/);
          return res.text();
        }),
      );
      for (const t of texts) expect(t.startsWith("WEBVTT")).toBe(true);
      expect(texts[0]).toContain("Hello embedded");
      expect(texts[0]).toMatch(/00:0?1\.0\d\d --> 00:0?4\.0\d\d/);
      expect(texts[1]).toContain("Café sidecar");
      expect(texts[1]).toContain("00:00:02.500 --> 00:00:05.000");
      expect(texts[1]).not.toContain("{\\an8}");
      expect(texts[2]).toContain("Styled line");
    });

    it("reads an .ass sidecar written in Windows-1252, as it does an .srt", async () => {
      const ass = [
        "[Script Info]",
        "ScriptType: v4.00+",
        "",
        "[Events]",
        "Format: Layer, Start, End, Style, Name, MarginL, MarginR, MarginV, Effect, Text",
        "Dialogue: 0,0:00:01.00,0:00:03.00,Default,,0,0,0,,Caf\xe9 cr\xe8me",
        "",
      ].join("\r\n");
      expect((await upload(s, token, "clip.ass", Buffer.from(ass, "latin1"))).status).toBe(201);
      const clip = await info(ids["clip.mp4"]!);
      const side = (clip.body.subtitles as { source: string; format: string; url: string }[]).find(
        (x) => x.source === "sidecar" && x.format === "ass",
      );
      const res = await fetch(`${s.url}${side?.url}`);
      expect(res.status).toBe(200);
      expect(await res.text()).toContain("Café crème");
    });

    it("reads music tags and shows the cover art as the thumbnail", async () => {
      const song = await info(ids["song.flac"]!);
      expect(song.body.tags).toEqual({
        title: "Song Title",
        artist: "The Artist",
        album: "The Album",
        track: 7,
        year: 2003,
        has_cover: true,
      });
      const thumb = await s.api("GET", `/api/v1/files/${ids["song.flac"]}/thumbnail?size=128`, { token });
      expect(thumb.status).toBe(200);
      expect(thumb.headers.get("content-type")).toBe("image/webp");
    });

    it("answers the same decision over RPC (gRPC), with URLs that play", async () => {
      const client = rpcClient(s.url, PlaybackPositionService, token);
      const film = await client.getPlaybackInfo({ fileId: ids["movie.mkv"]!, audio: 2 });
      const rest = (await info(ids["movie.mkv"]!, "?audio=2")).body;
      expect(film.mode).toBe("transcode");
      expect(film.video).toMatchObject({ codec: "hevc", width: 320, height: 240 });
      expect(film.audio.map((a) => [a.index, a.language, a.selected])).toEqual(
        rest.audio.map((a: { index: number; language: string; selected: boolean }) => [
          a.index,
          a.language,
          a.selected,
        ]),
      );
      expect(film.subtitles.map((x) => x.index)).toEqual([3, 1000, 1001]);
      const master = await fetch(`${s.url}${film.hlsUrl}`);
      expect(master.status).toBe(200);
      expect(await master.text()).toContain("audio=2");
      const song = await client.getPlaybackInfo({ fileId: ids["song.flac"]!, codecs: ["aac", "flac"] });
      expect(song).toMatchObject({ mode: "direct", tags: { title: "Song Title", track: 7, hasCover: true } });
      expect((await fetch(`${s.url}${song.directUrl}`, { headers: { Range: "bytes=0-3" } })).status).toBe(
        206,
      );
      await expect(client.getPlaybackInfo({ fileId: "not-an-id" })).rejects.toThrow(
        /invalid_argument|InvalidArgument|invalid/i,
      );
    });

    it("keeps every URL to the caller's own files: no credential 401, a stranger 404", async () => {
      const id = ids["movie.mkv"]!;
      const anon = await fetch(`${s.url}/api/v1/files/${id}/hls/master.m3u8`);
      expect(anon.status).toBe(401);
      expect((await fetch(`${s.url}/api/v1/files/${id}/playback-info`)).status).toBe(401);
      // Another organization's user.
      const theirs = (await register(s, "stranger")).token;
      expect((await info(id, "", theirs)).status).toBe(404);
      expect((await s.api("GET", `/api/v1/files/${id}/subtitles/1000.vtt`, { token: theirs })).status).toBe(
        404,
      );
      // A token for one file opens nothing of another.
      const film = await info(id);
      const st = new URL(film.body.hls_url, s.url).searchParams.get("st")!;
      const clip = ids["clip.mp4"]!;
      expect((await fetch(`${s.url}/api/v1/files/${clip}/hls/master.m3u8?st=${st}`)).status).toBe(401);
    });
  },
);

describe.skipIf(missing("playback bounds", "ffmpeg", "ffprobe"))("playback: conversions are bounded", () => {
  let s: TestServer;
  let token: string;
  let media: string;
  let id: string;

  beforeAll(async () => {
    media = mkdtempSync(join(tmpdir(), "attic-media-"));
    // Ten minutes of tiny video: converting it all would take a while, so the first conversion is still there.
    ffmpeg(
      ...["-f", "lavfi", "-i", "testsrc2=size=96x64:rate=5:duration=600"],
      ...["-f", "lavfi", "-i", "sine=frequency=440:duration=600"],
      ...["-f", "lavfi", "-i", "sine=frequency=880:duration=600"],
      ...["-map", "0", "-map", "1", "-map", "2", "-c:v", "mpeg4", "-c:a", "ac3"],
      join(media, "long.mkv"),
    );
    s = await startServer({ media: { max_transcodes: 1, transcode_idle_seconds: 10 } });
    token = await s.login();
    id = (await upload(s, token, "long.mkv", readFileSync(join(media, "long.mkv")))).body.id;
  }, 120_000);
  let closed = false;
  afterAll(async () => {
    if (!closed) await s?.close();
    else rmSync(s.dataDir, { recursive: true, force: true });
    rmSync(media, { recursive: true, force: true });
  });

  it("runs at most media.max_transcodes, then stops an idle one and removes its files", async () => {
    const stream = await s.api("POST", `/api/v1/files/${id}/stream-token`, { token });
    const st = stream.body.token as string;
    const seg = (n: number, audio?: number) =>
      fetch(
        `${s.url}/api/v1/files/${id}/hls/t/${st}/seg-${n}.ts${audio === undefined ? "" : `?audio=${audio}`}`,
      );
    expect((await seg(0)).status).toBe(200);
    const transcodes = join(s.dataDir, "transcodes");
    expect(readdirSync(transcodes)).toHaveLength(1);
    // The same file with the other audio track needs a second conversion: the only slot is busy.
    const busy = await seg(0, 2);
    expect(busy.status).toBe(503);
    expect(((await busy.json()) as { error: { code: string } }).error.code).toBe("ERR_UNAVAILABLE");
    // Nobody asks for more: after transcode_idle_seconds it is stopped and its segments removed.
    const deadline = Date.now() + 30_000;
    while (readdirSync(transcodes).length > 0 && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 500));
    expect(readdirSync(transcodes)).toHaveLength(0);
    expect((await seg(0, 2)).status).toBe(200);
  }, 60_000);

  it("removes conversions' files when the server stops", async () => {
    const transcodes = join(s.dataDir, "transcodes");
    expect(existsSync(transcodes)).toBe(true);
    closed = true;
    await s.server.close();
    expect(existsSync(transcodes)).toBe(false);
  });
});

describe.skipIf(missing("playback burst", "ffmpeg", "ffprobe"))(
  "playback: a burst of segment requests",
  () => {
    let s: TestServer;
    let token: string;
    let media: string;

    beforeAll(async () => {
      media = mkdtempSync(join(tmpdir(), "attic-media-"));
      ffmpeg(
        ...["-f", "lavfi", "-i", "testsrc2=size=96x64:rate=5:duration=600"],
        ...["-f", "lavfi", "-i", "sine=frequency=440:duration=600"],
        ...["-c:v", "mpeg4", "-c:a", "ac3"],
        join(media, "long.mkv"),
      );
      // Ten minutes at a size that takes seconds to convert from the start to the end.
      ffmpeg(
        ...["-f", "lavfi", "-i", "testsrc2=size=320x240:rate=25:duration=600"],
        ...["-c:v", "mpeg4", "-q:v", "31", "-an"],
        join(media, "film.mkv"),
      );
      s = await startServer({ media: { max_transcodes: 2 } });
      token = await s.login();
    }, 120_000);
    afterAll(async () => {
      await s?.close();
      rmSync(media, { recursive: true, force: true });
    });

    it("answers a waiting player at once when another one moved the conversion far from its segment", async () => {
      // Two people watching one film at different places share its conversion.
      const id = (await upload(s, token, "film.mkv", readFileSync(join(media, "film.mkv")))).body.id;
      const st = (await s.api("POST", `/api/v1/files/${id}/stream-token`, { token })).body.token;
      const seg = (n: number) => `${s.url}/api/v1/files/${id}/hls/t/${st}/seg-${n}.ts`;
      const farRun = () =>
        execFileSync("ps", ["-o", "args=", "--ppid", String(process.pid)])
          .toString()
          .includes("-ss 570.000");
      let answered = 0;
      const far = fetch(seg(190)).then((r) => {
        answered = Date.now();
        return r.status;
      });
      // Its conversion has started at 570 s and not yet made the segment: now the other player starts at 0.
      while (!farRun()) await new Promise((r) => setTimeout(r, 20));
      const restarted = Date.now();
      const near = fetch(seg(0)).then((r) => r.status);
      // The run from 0 would take seconds to reach 570 s: "ask again" now, not after a minute.
      expect(await far).toBe(503);
      expect(answered - restarted).toBeLessThan(3_000);
      expect(await near).toBe(200);
    }, 120_000);

    it("keeps to media.max_transcodes when many segments of many files are asked for at once", async () => {
      // Three copies of the film: each is its own conversion.
      const copies: string[] = [];
      for (const name of ["a.mkv", "b.mkv", "c.mkv"]) {
        copies.push((await upload(s, token, name, readFileSync(join(media, "long.mkv")))).body.id);
      }
      const urls: string[] = [];
      for (const fileId of copies) {
        const st = (await s.api("POST", `/api/v1/files/${fileId}/stream-token`, { token })).body.token;
        for (const n of [0, 30, 60, 90]) urls.push(`${s.url}/api/v1/files/${fileId}/hls/t/${st}/seg-${n}.ts`);
      }
      /** ffmpeg processes this server (running in the test's process) has started, alive (a killed one not yet reaped is a zombie). */
      const ffmpegs = () =>
        execFileSync("ps", ["-o", "stat=,comm=", "--ppid", String(process.pid)])
          .toString()
          .split("\n")
          .filter((l) => / ffmpeg$/.test(l.trim()) && !l.trim().startsWith("Z")).length;
      let most = 0;
      const sampler = setInterval(() => {
        most = Math.max(most, ffmpegs());
      }, 50);
      const statuses = await Promise.all(urls.map((u) => fetch(u).then((r) => r.status)));
      clearInterval(sampler);
      // Served or "busy, try again": never an internal error.
      expect(statuses.filter((x) => x !== 200 && x !== 503)).toEqual([]);
      expect(statuses).toContain(200);
      expect(most).toBeLessThanOrEqual(2);
      // None left running that the server lost track of.
      expect(ffmpegs()).toBeLessThanOrEqual(2);
    }, 120_000);
  },
);

describe.skipIf(missing("playback: two players", "ffmpeg", "ffprobe"))(
  "playback: two players of one film",
  () => {
    let s: TestServer;
    let token: string;
    let media: string;

    beforeAll(async () => {
      media = mkdtempSync(join(tmpdir(), "attic-media-"));
      ffmpeg(
        ...["-f", "lavfi", "-i", "testsrc2=size=320x240:rate=25:duration=600"],
        ...["-c:v", "mpeg4", "-q:v", "31", "-an"],
        join(media, "film.mkv"),
      );
      s = await startServer({ media: { max_transcodes: 2 } });
      token = await s.login();
    }, 120_000);
    afterAll(async () => {
      await s?.close();
      rmSync(media, { recursive: true, force: true });
    });

    it("gives two people watching one film at different places a conversion each", async () => {
      const id = (await upload(s, token, "film2.mkv", readFileSync(join(media, "film.mkv")))).body.id;
      // Each player has its own stream token (playback-info issues one per play).
      const tokens = await Promise.all(
        [1, 2].map(
          async () => (await s.api("POST", `/api/v1/files/${id}/stream-token`, { token })).body.token,
        ),
      );
      const watch = async (st: string, from: number) => {
        const statuses: number[] = [];
        for (let n = from; n < from + 4; n++) {
          statuses.push((await fetch(`${s.url}/api/v1/files/${id}/hls/t/${st}/seg-${n}.ts`)).status);
        }
        return statuses;
      };
      const [a, b] = await Promise.all([watch(tokens[0], 0), watch(tokens[1], 150)]);
      // Neither restarts the other's ffmpeg: every segment comes, none "busy, ask again".
      expect({ a, b }).toEqual({ a: [200, 200, 200, 200], b: [200, 200, 200, 200] });
    }, 120_000);
  },
);

describe("playback without ffmpeg", () => {
  let s: TestServer;
  let token: string;

  beforeAll(async () => {
    s = await startServer({
      media: { ffmpeg_path: "/nonexistent/ffmpeg", ffprobe_path: "/nonexistent/ffprobe" },
    });
    token = await s.login();
  });
  afterAll(async () => {
    await s?.close();
  });

  it("still plays directly, offers SubRip sidecars, and says why nothing is converted", async () => {
    const film = await upload(s, token, "film.mp4", new Uint8Array(4096), { type: "video/mp4" });
    expect(film.status).toBe(201);
    await upload(s, token, "film.de.srt", "1\n00:00:01,000 --> 00:00:02,000\nHallo\n");
    await upload(s, token, "film.ass", "[Script Info]\n");
    const info = await s.api("GET", `/api/v1/files/${film.body.id}/playback-info`, { token });
    expect(info.status).toBe(200);
    expect(info.body).toMatchObject({ mode: "direct", hls_url: null, video: null, audio: [] });
    expect(info.body.reason).toMatch(/ffmpeg is not installed/);
    expect(info.body.subtitles.map((x: { language?: string }) => x.language)).toEqual(["de"]);
    const vtt = await fetch(`${s.url}${info.body.subtitles[0].url}`);
    expect(await vtt.text()).toContain("00:00:01.000 --> 00:00:02.000\nHallo");
    const master = await s.api("GET", `/api/v1/files/${film.body.id}/hls/master.m3u8`, { token });
    expect(master.status).toBe(503);
  });
});
