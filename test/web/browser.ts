import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type Browser, type BrowserContext, chromium, type Page } from "playwright-core";

/** Where screenshots go (gitignored); CI keeps the directory as an artifact. */
export const ARTIFACTS = join(process.cwd(), "test-artifacts", "web");

export const PHONE = { width: 390, height: 844 };
export const LAPTOP = { width: 1366, height: 768 };

export interface UiBrowser {
  browser: Browser;
  context: BrowserContext;
  page: Page;
  /** Requests to anything but the server (must stay empty: nothing loads from outside). */
  foreign: string[];
  /** Console errors, CSP violations among them. */
  consoleErrors: string[];
  shot(name: string): Promise<void>;
  close(): Promise<void>;
}

/** Debian's chromium, headless, with a fresh profile (playwright makes a temporary one per launch); every request and console error recorded. */
export async function openBrowser(origin: string): Promise<UiBrowser> {
  const browser = await chromium.launch({
    executablePath: "/usr/bin/chromium",
    args: [
      "--headless",
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
      "--autoplay-policy=no-user-gesture-required",
    ],
  });
  const context = await browser.newContext({ viewport: LAPTOP });
  const page = await context.newPage();
  // Below the test timeout, so a missing element fails with the locator in the message.
  page.setDefaultTimeout(10_000);
  const foreign: string[] = [];
  const consoleErrors: string[] = [];
  page.on("request", (r) => {
    const u = r.url();
    if (!u.startsWith(`${origin}/`) && !u.startsWith("blob:") && !u.startsWith("data:")) foreign.push(u);
  });
  page.on("console", (m) => {
    if (m.type() === "error") consoleErrors.push(m.text());
  });
  mkdirSync(ARTIFACTS, { recursive: true });
  return {
    browser,
    context,
    page,
    foreign,
    consoleErrors,
    async shot(name) {
      await page.screenshot({ path: join(ARTIFACTS, `${name}.png`), animations: "disabled" });
    },
    async close() {
      await browser.close();
    },
  };
}

/** Test media made by ffmpeg: a 5 s H.264/AAC video and a PNG; plus text and JSON. */
export function makeFixtures(): { dir: string; video: string; image: string; text: string; json: string } {
  const dir = mkdtempSync(join(tmpdir(), "attic-web-fixtures-"));
  const video = join(dir, "clip.mp4");
  const image = join(dir, "picture.png");
  const ff = (args: string[]) =>
    execFileSync("ffmpeg", ["-hide_banner", "-loglevel", "error", "-y", ...args]);
  ff([
    ...["-f", "lavfi", "-i", "testsrc=duration=5:size=320x240:rate=25"],
    ...["-f", "lavfi", "-i", "sine=frequency=440:duration=5"],
    ...[
      "-c:v",
      "libx264",
      "-pix_fmt",
      "yuv420p",
      "-c:a",
      "aac",
      "-shortest",
      "-movflags",
      "+faststart",
      video,
    ],
  ]);
  ff(["-f", "lavfi", "-i", "testsrc=size=640x480", "-frames:v", "1", image]);
  const text = join(dir, "hello.txt");
  writeFileSync(text, "Hello from the attic\nsecond line\n");
  const json = join(dir, "data.json");
  writeFileSync(json, JSON.stringify({ name: "attic", nested: { ok: true } }));
  return { dir, video, image, text, json };
}
