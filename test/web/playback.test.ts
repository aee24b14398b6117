import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildWeb } from "../../scripts/build-web.ts";
import { upload } from "../helpers/files.ts";
import { missing } from "../helpers/programs.ts";
import { ADMIN_PASSWORD, startServer, type TestServer } from "../helpers/server.ts";
import { openBrowser, type UiBrowser } from "./browser.ts";

/**
 * Every file plays (issue 15), in Debian's chromium: an HEVC + AC-3 MKV with
 * two audio languages, an embedded subtitle and a sidecar .srt, which no
 * browser plays as it is. The UI converts it through HLS (hls.js), seeks,
 * shows subtitles, switches the audio track and resumes after a reload.
 */
describe.skipIf(missing("playback UI", "/usr/bin/chromium", "ffmpeg", "ffprobe"))("playback UI", () => {
  let s: TestServer;
  let ui: UiBrowser;
  let page: Page;
  let token: string;
  let media: string;
  let id: string;
  const requests: string[] = [];
  /** The server's last log lines (requests at info, conversions' warnings), for a failure's message. */
  const serverLog: string[] = [];

  beforeAll(async () => {
    media = mkdtempSync(join(tmpdir(), "attic-ui-media-"));
    const srt = join(media, "in.srt");
    writeFileSync(srt, "1\n00:00:00,500 --> 00:00:30,000\nEmbedded line\n");
    execFileSync("ffmpeg", [
      ...["-v", "error", "-y"],
      ...["-f", "lavfi", "-i", "testsrc2=size=320x240:rate=25:duration=30"],
      ...["-f", "lavfi", "-i", "sine=frequency=440:duration=30"],
      ...["-f", "lavfi", "-i", "sine=frequency=880:duration=30"],
      ...["-i", srt, "-map", "0", "-map", "1", "-map", "2", "-map", "3"],
      ...["-c:v", "libx265", "-preset", "ultrafast", "-x265-params", "log-level=error"],
      ...["-c:a", "ac3", "-c:s", "srt"],
      ...["-metadata:s:a:0", "language=eng", "-metadata:s:a:1", "language=fra"],
      join(media, "film.mkv"),
    ]);
    await buildWeb();
    s = await startServer(
      { log: { level: "info" } },
      {
        logTo: (line) => {
          serverLog.push(line);
          if (serverLog.length > 400) serverLog.shift();
        },
      },
    );
    token = await s.login();
    id = (await upload(s, token, "film.mkv", readFileSync(join(media, "film.mkv")))).body.id;
    const sidecar = "1\n00:00:00,500 --> 00:00:30,000\nSidecar line\n";
    expect((await upload(s, token, "film.en.srt", sidecar)).status).toBe(201);
    ui = await openBrowser(s.url);
    page = ui.page;
    page.on("request", (r) => requests.push(r.url()));
    await page.goto(s.url);
    await page.getByLabel("Username").fill("admin");
    await page.getByLabel("Password").fill(ADMIN_PASSWORD);
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.getByRole("listbox", { name: "Your files" }).waitFor();
  }, 180_000);

  afterAll(async () => {
    await ui?.close();
    await s?.close();
    rmSync(media, { recursive: true, force: true });
  });

  const video = () => page.locator("dialog[open] video");
  const playing = (after: number) =>
    page.waitForFunction(
      (t) => {
        const v = document.querySelector("dialog[open] video") as HTMLVideoElement | null;
        return Boolean(v && v.readyState >= 2 && v.currentTime > t && !v.paused);
      },
      after,
      { timeout: 30_000 },
    );

  /** What the page and the server say, for a step that did not happen. */
  const state = async () => {
    const player = await page
      .evaluate(() => {
        const v = document.querySelector("dialog[open] video") as HTMLVideoElement | null;
        const error = document.querySelector("dialog[open] .player .error")?.textContent;
        return v
          ? {
              at: v.currentTime,
              ready: v.readyState,
              paused: v.paused,
              seeking: v.seeking,
              code: v.error?.code,
              error,
            }
          : { error: error ?? "no video" };
      })
      .catch((e: Error) => ({ error: e.message }));
    const notable = serverLog.filter((l) => /"level":[4-6]0|"status":[45]\d\d|conversion/.test(l)).slice(-15);
    return `player ${JSON.stringify(player)}; server:\n${notable.join("\n")}`;
  };
  /** Waits for `what`, failing after `ms` with the player's and the server's state. */
  const step = async <T>(name: string, what: Promise<T>, ms = 30_000): Promise<T> => {
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`not within ${ms} ms`)), ms);
    });
    try {
      return await Promise.race([what, late]);
    } catch (e) {
      throw new Error(`${name}: ${(e as Error).message.split("\n")[0]}\n${await state()}`);
    } finally {
      clearTimeout(timer);
    }
  };

  it("plays the HEVC/AC-3 MKV converted, and seeks into the middle", async () => {
    await page.goto(`${s.url}/?open=${id}`);
    await page.locator('dialog[open] .player[data-mode="transcode"]').waitFor();
    await page.locator("dialog[open] .player-options", { hasText: "Converted for this browser" }).waitFor();
    await step("playing from the start", playing(0.5));
    expect(requests.some((u) => u.includes(`/files/${id}/hls/master.m3u8`))).toBe(true);
    expect(requests.some((u) => /\/hls\/t\/[^/]+\/seg-\d+\.ts/.test(u))).toBe(true);
    await video().evaluate((v: HTMLVideoElement) => {
      v.currentTime = 20;
    });
    await step("playing after the seek to 0:20", playing(20.2));
    await ui.shot("laptop-player-converted");
  }, 120_000);

  it("shows the chosen subtitles: the sidecar file and the embedded stream", async () => {
    const cueOf = (label: string) =>
      page.waitForFunction(
        (l) => {
          const v = document.querySelector("dialog[open] video") as HTMLVideoElement;
          const t = [...v.textTracks].find((x) => x.label.startsWith(l));
          return t?.mode === "showing" && (t.cues?.length ?? 0) > 0
            ? t.cues?.[0] && (t.cues[0] as VTTCue).text
            : false;
        },
        label,
        { timeout: 15_000 },
      );
    await page.getByLabel("Subtitles").selectOption({ label: "English (file)" });
    expect(await (await cueOf("English (file)")).jsonValue()).toBe("Sidecar line");
    const embedded = await page.getByLabel("Subtitles").locator("option").allTextContents();
    expect(embedded).toContain("Off");
    const other = embedded.find((t) => t !== "Off" && t !== "English (file)")!;
    await page.getByLabel("Subtitles").selectOption({ label: other });
    expect(await (await cueOf(other)).jsonValue()).toBe("Embedded line");
  }, 120_000);

  it("switches to the second audio track where it was, and remembers it", async () => {
    const before = await video().evaluate((v: HTMLVideoElement) => v.currentTime);
    const audio = page.getByLabel("Audio track");
    const labels = await audio.locator("option").allTextContents();
    expect(labels).toHaveLength(2);
    await audio.selectOption({ index: 1 });
    await page.waitForFunction(() =>
      performance.getEntriesByType("resource").some((e) => e.name.includes("audio=2")),
    );
    await step("playing the second track", playing(Math.max(0, before - 2)));
    expect(requests.some((u) => u.includes("/hls/t/") && u.includes("audio=2"))).toBe(true);
    await page.keyboard.press("Escape");
    await page.goto(`${s.url}/?open=${id}`);
    await page.locator("dialog[open] .player-options").waitFor();
    expect(await page.getByLabel("Audio track").inputValue()).toBe("2");
  }, 120_000);

  it("resumes a converted film where it was left", async () => {
    await step("playing before the seek", playing(0.2));
    await step(
      "the seek to 0:12",
      video().evaluate(async (v: HTMLVideoElement) => {
        const seeked = new Promise((r) => v.addEventListener("seeked", r, { once: true }));
        v.currentTime = 12;
        await seeked;
        v.pause();
      }),
    );
    await expect
      .poll(
        async () => (await s.api("GET", `/api/v1/playback-positions/${id}`, { token })).body.position_seconds,
        { timeout: 15_000 },
      )
      .toBeGreaterThan(11);
    await step("the reload", page.reload());
    await step("the resume note", page.locator(".resume-note", { hasText: "Resumed at 0:1" }).waitFor());
    await step("playing after the reload", playing(11));
  }, 150_000);
});
