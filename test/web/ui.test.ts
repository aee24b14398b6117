import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { basename, join } from "node:path";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildWeb } from "../../scripts/build-web.ts";
import { missing } from "../helpers/programs.ts";
import { startServer, type TestServer } from "../helpers/server.ts";
import { LAPTOP, makeFixtures, openBrowser, PHONE, type UiBrowser } from "./browser.ts";

/**
 * The browser UI end to end in Debian's chromium: the real server, the real
 * bundle, real HTTP. Steps run in order on one page, like a person would.
 */
/** Small enough that a test file can cross it, big enough for the fixtures. */
const MAX_UPLOAD = 8 * 1024 * 1024;

describe.skipIf(missing("web UI", "/usr/bin/chromium", "ffmpeg"))("web UI", () => {
  let s: TestServer;
  let ui: UiBrowser;
  let page: Page;
  let fx: ReturnType<typeof makeFixtures>;
  let token: string;
  const statuses: { url: string; status: number; range?: string }[] = [];

  beforeAll(async () => {
    await buildWeb();
    s = await startServer({ storage: { max_upload_bytes: MAX_UPLOAD } });
    token = await s.login();
    fx = makeFixtures();
    ui = await openBrowser(s.url);
    page = ui.page;
    page.on("response", (r) =>
      statuses.push({ url: r.url(), status: r.status(), range: r.request().headers().range }),
    );
  }, 120_000);

  afterAll(async () => {
    await ui?.close();
    await s?.close();
    if (fx) rmSync(fx.dir, { recursive: true, force: true });
  });

  const entry = (name: string) => page.locator(`[role=option][data-name="${name}"]`);
  const dialog = () => page.locator("dialog[open]");
  const fileIdByName = async (name: string, parent?: string) => {
    const r = await s.api(
      "GET",
      `/api/v1/${parent ? `directories/${parent}/children` : "files"}?limit=1000`,
      { token },
    );
    return (r.body.files as { id: string; name: string }[]).find((f) => f.name === name)?.id;
  };

  it("serves the UI for / and client routes, caches assets, keeps API 404s JSON", async () => {
    const index = await fetch(`${s.url}/`);
    expect(index.status).toBe(200);
    expect(index.headers.get("cache-control")).toBe("no-cache");
    expect(index.headers.get("content-security-policy")).toContain("default-src 'self'");
    expect(index.headers.get("content-security-policy")).not.toContain("unsafe-inline");
    const html = await index.text();
    const js = /src="(\/assets\/app-[^"]+\.js)"/.exec(html)?.[1];
    expect(js).toBeDefined();
    const asset = await fetch(s.url + js);
    expect(asset.headers.get("content-type")).toContain("javascript");
    expect(asset.headers.get("cache-control")).toContain("immutable");
    expect(asset.headers.get("content-encoding")).toBe("gzip");
    const plain = await fetch(s.url + js, { headers: { "accept-encoding": "identity" } });
    expect(plain.headers.get("content-encoding")).toBeNull();
    expect((await plain.text()).length).toBe((await asset.text()).length);
    expect((await fetch(`${s.url}/d/some-folder?open=x`)).headers.get("content-type")).toContain("text/html");
    expect((await fetch(`${s.url}/assets/missing.js`)).status).toBe(404);
    const api404 = await s.api("GET", "/api/v1/definitely-not-here");
    expect(api404.status).toBe(404);
    expect(api404.body.error.code).toBe("ERR_NOT_FOUND");
  });

  it("signs in", async () => {
    await page.goto(s.url);
    await ui.shot("laptop-login");
    await page.getByLabel("Username").fill("admin");
    await page.getByLabel("Password").fill("wrong-password-here");
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.getByText("Wrong username or password.").waitFor();
    await page.getByLabel("Password").fill("correct-Horse-battery-9");
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.getByRole("listbox", { name: "Your files" }).waitFor();
    const stored = await page.evaluate(() => localStorage.getItem("attic.session"));
    expect(JSON.parse(stored!).refresh_token).toBeTruthy();
  });

  it("uploads with per-file and total progress", async () => {
    await page.evaluate(() => {
      const seen: [number, number, string][] = [];
      (window as unknown as { seen: typeof seen }).seen = seen;
      new MutationObserver(() => {
        const total = document.querySelector<HTMLProgressElement>("progress.total");
        const head = document.querySelector(".uploads-head")?.textContent ?? "";
        if (total) seen.push([total.value, total.max, head]);
      }).observe(document.body, { subtree: true, childList: true, attributes: true, characterData: true });
    });
    const big = Buffer.alloc(6 * 1024 * 1024, 7);
    const asPayload = (file: string, mimeType: string) => ({
      name: basename(file),
      mimeType,
      buffer: readFileSync(file),
    });
    await page.setInputFiles('input[aria-label="Choose files to upload"]', [
      asPayload(fx.text, "text/plain"),
      asPayload(fx.json, "application/json"),
      asPayload(fx.image, "image/png"),
      asPayload(fx.video, "video/mp4"),
      { name: "big.bin", mimeType: "application/octet-stream", buffer: big },
    ]);
    await page.locator(".uploads-head", { hasText: "Uploads finished" }).waitFor();
    for (const n of ["hello.txt", "data.json", "picture.png", "clip.mp4", "big.bin"])
      await entry(n).waitFor();
    const seen = await page.evaluate(() => (window as unknown as { seen: [number, number, string][] }).seen);
    expect(seen.some(([, , head]) => head.startsWith("Uploading"))).toBe(true);
    const values = seen.map(([v]) => v);
    expect(values).toEqual([...values].sort((a, b) => a - b));
    const [lastValue, lastMax] = seen[seen.length - 1]!;
    expect(lastMax).toBeGreaterThan(big.length);
    expect(lastValue).toBe(lastMax);
    await ui.shot("laptop-uploads");
  });

  it("offers keep-both or skip on a name clash", async () => {
    await page.setInputFiles('input[aria-label="Choose files to upload"]', [fx.text]);
    const clash = page.locator(".upload[data-status=conflict]");
    await clash.waitFor();
    expect(await clash.textContent()).toContain("already exists");
    await clash.getByRole("button", { name: "Keep both" }).click();
    await entry("hello (1).txt").waitFor();
  });

  it("creates a folder, uploads a whole folder into it, and browses with breadcrumbs", async () => {
    await page.getByRole("button", { name: "New folder" }).click();
    await dialog().getByLabel("Folder name").fill("Holidays");
    await dialog().getByRole("button", { name: "Create" }).click();
    await entry("Holidays").click();
    await page.locator('.crumbs [aria-current="page"]', { hasText: "Holidays" }).waitFor();
    const trip = join(fx.dir, "Trip");
    mkdirSync(join(trip, "day1"), { recursive: true });
    writeFileSync(join(trip, "day1", "beach.txt"), "sand");
    writeFileSync(join(trip, "notes.txt"), "notes");
    await page.setInputFiles('input[aria-label="Choose a folder to upload"]', trip);
    await entry("Trip").click();
    await entry("day1").waitFor();
    await entry("notes.txt").waitFor();
    await page.locator(".crumbs").getByRole("link", { name: "Holidays" }).click();
    await entry("Trip").waitFor();
    await page.locator(".crumbs").getByRole("link", { name: "Shared files", exact: true }).click();
    await entry("Holidays").waitFor();
  });

  it("previews text, JSON and an image", async () => {
    await entry("hello.txt").click();
    await dialog().locator("pre.preview-text", { hasText: "Hello from the attic" }).waitFor();
    await page.keyboard.press("Escape");
    await entry("data.json").click();
    const pre = dialog().locator("pre.preview-text");
    await pre.waitFor();
    expect(await pre.textContent()).toContain('"nested": {\n    "ok": true');
    await page.keyboard.press("Escape");
    await entry("picture.png").click();
    const img = dialog().locator("img.preview-image");
    await img.waitFor();
    await page.waitForFunction(
      () => (document.querySelector("img.preview-image") as HTMLImageElement)?.naturalWidth > 0,
    );
    expect(await img.evaluate((i: HTMLImageElement) => i.naturalWidth)).toBe(640);
    await ui.shot("laptop-preview-image");
    await page.keyboard.press("Escape");
  });

  it("downloads a file through a one-file link", async () => {
    await entry("data.json").locator(".check").click();
    const [download] = await Promise.all([
      page.waitForEvent("download"),
      page.getByRole("button", { name: "Download" }).click(),
    ]);
    expect(download.suggestedFilename()).toBe("data.json");
    expect(JSON.parse(readFileSync((await download.path())!, "utf8"))).toEqual({
      name: "attic",
      nested: { ok: true },
    });
    await entry("data.json").locator(".check").click();
    await page.getByText("1 selected").waitFor({ state: "detached" });
  });

  it("shows progress while a slow upload runs and cancels it", async () => {
    // A throttled link (256 KB/s up) makes the upload last long enough to watch and cancel.
    const cdp = await ui.context.newCDPSession(page);
    await cdp.send("Network.enable");
    await cdp.send("Network.emulateNetworkConditions", {
      offline: false,
      latency: 0,
      downloadThroughput: -1,
      uploadThroughput: 256 * 1024,
    });
    try {
      await page.setInputFiles('input[aria-label="Choose files to upload"]', [
        { name: "slow.bin", mimeType: "application/octet-stream", buffer: Buffer.alloc(4 * 1024 * 1024, 3) },
      ]);
      await page.waitForFunction(() => {
        const p = document.querySelector<HTMLProgressElement>('progress[aria-label="Progress of slow.bin"]');
        return !!p && p.value > 0 && p.value < p.max;
      });
      await page.getByRole("button", { name: "Cancel slow.bin" }).click();
      await page.locator(".upload[data-status=canceled]", { hasText: "slow.bin" }).waitFor();
    } finally {
      await cdp.send("Network.emulateNetworkConditions", {
        offline: false,
        latency: 0,
        downloadThroughput: -1,
        uploadThroughput: -1,
      });
      await cdp.detach();
    }
    expect(await fileIdByName("slow.bin")).toBeUndefined();
  });

  it("renames, copies and moves a multi-selection, deletes to the trash and restores", async () => {
    await entry("hello (1).txt").locator(".check").click();
    await page.getByText("1 selected").waitFor();
    await page.getByRole("button", { name: "Rename" }).click();
    await dialog().getByLabel("New name").fill("greeting.txt");
    await dialog().getByRole("button", { name: "Rename" }).click();
    await entry("greeting.txt").waitFor();
    await entry("greeting.txt").locator(".check").click();
    await entry("big.bin").click({ modifiers: ["Control"] });
    await page.getByText("2 selected").waitFor();
    // The picker asks for folders only: never for every file of the folders it shows.
    const asked: string[] = [];
    const onRequest = (r: { url(): string }) => asked.push(new URL(r.url()).pathname);
    page.on("request", onRequest);
    await page.getByRole("button", { name: "Copy" }).click();
    await dialog().getByRole("button", { name: "Holidays" }).click();
    await dialog().getByRole("button", { name: "Trip" }).waitFor();
    page.off("request", onRequest);
    await dialog().getByRole("button", { name: "Copy to “Holidays”" }).click();
    await page.getByText("Copied 2 items").waitFor();
    expect(asked).toContain("/api/v1/directories");
    expect(asked.filter((p) => p.endsWith("/children") || p === "/api/v1/files")).toEqual([]);
    const holidays = (await fileIdByName("Holidays"))!;
    expect(await fileIdByName("greeting.txt", holidays)).toBeDefined();
    expect(await fileIdByName("big.bin", holidays)).toBeDefined();

    await entry("greeting.txt").locator(".check").click();
    await page.getByRole("button", { name: "Move" }).click();
    await dialog().getByRole("button", { name: "Holidays" }).click();
    await dialog().getByRole("button", { name: "Trip" }).click();
    await dialog().getByRole("button", { name: "Move to “Trip”" }).click();
    await entry("greeting.txt").waitFor({ state: "detached" });
    expect(await fileIdByName("greeting.txt", await fileIdByName("Trip", holidays))).toBeDefined();

    await entry("big.bin").locator(".check").click();
    await page.getByRole("listbox", { name: "Your files" }).press("Delete");
    await dialog().getByRole("button", { name: "Move to trash" }).click();
    await entry("big.bin").waitFor({ state: "detached" });
    await page.getByRole("link", { name: "Trash" }).click();
    const item = page.locator(".trash-item", { hasText: "big.bin" });
    await item.getByRole("button", { name: "Restore" }).click();
    await page.getByText("Restored “big.bin”").waitFor();
    await page.getByRole("link", { name: "Shared files", exact: true }).click();
    await entry("big.bin").waitFor();
  });

  it("edits tags in the viewer and filters search by tag", async () => {
    await entry("hello.txt").click();
    await dialog().getByLabel("Add a tag").fill("family");
    await dialog().getByRole("button", { name: "Add", exact: true }).click();
    await dialog().locator(".chips .tag", { hasText: "family" }).waitFor();
    const id = await fileIdByName("hello.txt");
    const tags = await s.api("GET", `/api/v1/files/${id}/tags`, { token });
    expect(tags.body.tags.map((t: { name: string }) => t.name)).toEqual(["family"]);
    await page.keyboard.press("Escape");
    await entry("hello.txt").locator(".tag", { hasText: "family" }).waitFor();
  });

  it("plays the video with ranges, saves the position and resumes after a reload", async () => {
    const id = await fileIdByName("clip.mp4");
    await entry("clip.mp4").click();
    await page.waitForFunction(
      () => (document.querySelector("dialog[open] video") as HTMLVideoElement)?.readyState >= 1,
    );
    await page.evaluate(async () => {
      const v = document.querySelector("dialog[open] video") as HTMLVideoElement;
      const seeked = new Promise((r) => v.addEventListener("seeked", r, { once: true }));
      v.pause();
      v.currentTime = 3;
      await seeked;
      v.dispatchEvent(new Event("pause"));
    });
    await expect
      .poll(
        async () => (await s.api("GET", `/api/v1/playback-positions/${id}`, { token })).body.position_seconds,
        {
          timeout: 15_000,
        },
      )
      .toBeCloseTo(3, 0);
    const streamed = statuses.filter((r) => r.url.includes(`/files/${id}/stream?st=`));
    expect(streamed.some((r) => r.status === 206 && r.range)).toBe(true);
    await ui.shot("laptop-player");
    await page.reload();
    await page.locator(".resume-note", { hasText: "Resumed at 0:03" }).waitFor();
    const t = await page.evaluate(
      () => (document.querySelector("dialog[open] video") as HTMLVideoElement).currentTime,
    );
    expect(t).toBeGreaterThanOrEqual(2.9);
    await page.keyboard.press("Escape");
  });

  it("says why a video cannot play instead of a silent black box", async () => {
    const form = new FormData();
    form.set(
      "file",
      new Blob(["this is not a video at all\n".repeat(64)], { type: "video/mp4" }),
      "broken.mp4",
    );
    expect((await s.api("POST", "/api/v1/files", { token, body: form })).status).toBe(201);
    const id = await fileIdByName("broken.mp4");
    await page.goto(`${s.url}/?open=${id}`);
    const alert = dialog().getByRole("alert");
    await alert.waitFor();
    expect(await alert.textContent()).toMatch(/cannot decode/);
    await page.keyboard.press("Escape");
  });

  it("shows the video on the continue-watching shelf", async () => {
    // The player of the test before may have played on to the end on a loaded machine, and a
    // finished video leaves the shelf: start from a known, unfinished place.
    const id = (await fileIdByName("clip.mp4"))!;
    const saved = await s.api("GET", `/api/v1/playback-positions/${id}`, { token });
    const duration = saved.status === 200 ? saved.body.duration_seconds : 0;
    const put = await s.api("PUT", `/api/v1/playback-positions/${id}`, {
      token,
      body: { position_seconds: 1, duration_seconds: duration },
    });
    expect(put.status).toBe(200);
    await page.goto(s.url);
    await page.locator(".shelf", { hasText: "clip.mp4" }).waitFor();
    // Each item says where it lives, so two copies of one film can be told apart.
    await page.locator(".shelf .shelf-folder", { hasText: "in /" }).first().waitFor();
    await ui.shot("laptop-files");
  });

  it("searches as you type, with filters", async () => {
    await page.locator("#search-input").fill("hello");
    await page.waitForURL(/\/search\?q=hello/);
    const results = page.getByRole("listbox", { name: "Search results" });
    await results.locator('[data-name="hello.txt"]').waitFor();
    await page.getByLabel("Type").selectOption("directory");
    await page.getByText("Nothing matches").waitFor();
    await page.getByLabel("Type").selectOption("file");
    await results.locator('[data-name="hello.txt"]').waitFor();
    expect(await results.locator('[data-name="hello.txt"] .folder').textContent()).toMatch(/^in \//);
    await ui.shot("laptop-search");
  });

  it("creates a watched folder, choosing the path from suggestions", async () => {
    mkdirSync(join(fx.dir, "library", "Films"), { recursive: true });
    writeFileSync(join(fx.dir, "library", "Films", "readme.txt"), "films");
    await page.goto(`${s.url}/admin/watched`);
    const path = page.getByRole("combobox");
    await path.fill(join(fx.dir, "lib"));
    await page.getByRole("option", { name: join(fx.dir, "library") }).waitFor();
    await path.press("ArrowDown");
    await path.press("Enter");
    expect(await path.inputValue()).toBe(`${join(fx.dir, "library")}/`);
    await page.getByLabel("Name in Attic").fill("Library");
    await page.getByRole("button", { name: "Watch folder" }).click();
    const card = page.locator(".card.wf", { hasText: "Library" });
    await card.locator(".badge").waitFor();
    await card.getByText("indexed").waitFor();
    await card.getByRole("button", { name: "Scan now" }).click();
    await page.getByText("Scanning Library").waitFor();
    await ui.shot("laptop-watched");
    // Inside it the browser offers nothing that writes: the server says read_only.
    const folders = await s.api("GET", "/api/v1/watched-folders", { token });
    const library = folders.body.folders.find((w: { name: string }) => w.name === "Library");
    await page.goto(`${s.url}/d/${library.directory_id}`);
    await page.locator('[data-name="Films"]').waitFor();
    expect(await page.getByRole("button", { name: "Upload", exact: true }).count()).toBe(0);
    expect(await page.getByRole("button", { name: "New folder" }).count()).toBe(0);
  });

  it("says a large search's total is an estimate, and keeps offering more", async () => {
    // 6,000 matches: above the bound past which a search may estimate its total.
    const bulk = join(fx.dir, "library", "Bulk");
    mkdirSync(bulk, { recursive: true });
    for (let i = 0; i < 6000; i++) writeFileSync(join(bulk, `bulkphoto-${i}.jpg`), "");
    const folders = await s.api("GET", "/api/v1/watched-folders", { token });
    const library = folders.body.folders.find((w: { name: string }) => w.name === "Library");
    expect((await s.api("POST", `/api/v1/watched-folders/${library.id}/scan`, { token })).status).toBe(202);
    let found: { total: number; total_is_estimate: boolean } = { total: 0, total_is_estimate: false };
    for (let i = 0; i < 300 && !found.total_is_estimate; i++) {
      found = (await s.api("GET", "/api/v1/search?q=bulkphoto&limit=100", { token })).body;
      if (!found.total_is_estimate) await new Promise((r) => setTimeout(r, 100));
    }
    expect(found.total_is_estimate).toBe(true);
    await page.goto(`${s.url}/search?q=bulkphoto`);
    await page.getByText(/^about [\d,]+ results$/).waitFor();
    const results = page.getByRole("listbox", { name: "Search results" });
    await results.locator('[data-name="bulkphoto-0.jpg"]').waitFor();
    const next = page.waitForResponse(
      (r) => r.url().includes("/api/v1/search") && r.url().includes("offset=100"),
    );
    await page.getByRole("button", { name: "Show more" }).click();
    expect(((await (await next).json()) as { files: unknown[] }).files).toHaveLength(100);
    // Still an estimate, still more to show.
    await page.getByRole("button", { name: "Show more" }).waitFor();
  });

  it("manages users and roles", async () => {
    await page.getByRole("link", { name: "Users & roles" }).click();
    const form = page.getByRole("form", { name: "Add a user" });
    await form.getByLabel("Username").fill("alice");
    await form.getByLabel("Email").fill("alice@example.com");
    await form.getByLabel("Password").fill("quiet-Lantern-harbor-42");
    await form.getByRole("button", { name: "Add user" }).click();
    const row = page.getByRole("row", { name: /alice/ });
    await row.getByRole("button", { name: "Deactivate" }).click();
    await row.getByRole("button", { name: "Reactivate" }).waitFor();
    const roleForm = page.getByRole("form", { name: "New role" });
    await roleForm.getByLabel("Name").fill("Viewers");
    await roleForm.getByRole("button", { name: "Create role" }).click();
    await page.locator(".cards .card", { hasText: "Viewers" }).waitFor();
    const assign = page.getByRole("form", { name: "Assign a role" });
    await assign.getByLabel("User").selectOption({ label: "alice" });
    await assign.getByLabel("Role").selectOption({ label: "Viewers" });
    await assign.getByRole("button", { name: "Assign" }).click();
    await row.getByText("Viewers").waitFor();
    await ui.shot("laptop-users");
  });

  it("creates an API key shown once, which works until revoked", async () => {
    await page.getByRole("link", { name: "API keys" }).click();
    await page.getByLabel("Name").fill("backup script");
    await page.getByRole("button", { name: "Create key" }).click();
    const keyField = page.getByLabel("New API key");
    const key = await keyField.inputValue();
    expect(key).toMatch(/^attic_/);
    expect((await s.api("GET", "/api/v1/files", { token: { apiKey: key } })).status).toBe(200);
    await page.getByRole("button", { name: "Done" }).click();
    expect(await keyField.count()).toBe(0);
    await page
      .getByRole("row", { name: /backup script/ })
      .getByRole("button", { name: "Revoke" })
      .click();
    await dialog().getByRole("button", { name: "Revoke" }).click();
    await page.getByText("No keys yet.").waitFor();
    expect((await s.api("GET", "/api/v1/files", { token: { apiKey: key } })).status).toBe(401);
  });

  it("uploads dropped files and explains a file that is too large", async () => {
    await page.goto(s.url);
    await entry("hello.txt").waitFor();
    const drop = await page.evaluateHandle(() => {
      const dt = new DataTransfer();
      dt.items.add(new File(["dropped on the page"], "dropped.txt", { type: "text/plain" }));
      return dt;
    });
    await page.dispatchEvent("section.browser", "dragover", { dataTransfer: drop });
    await page.locator(".dropzone").waitFor();
    await page.dispatchEvent("section.browser", "drop", { dataTransfer: drop });
    await entry("dropped.txt").waitFor();
    await page.setInputFiles('input[aria-label="Choose files to upload"]', [
      { name: "huge.bin", mimeType: "application/octet-stream", buffer: Buffer.alloc(MAX_UPLOAD + 1024, 1) },
    ]);
    const failed = page.locator(".upload[data-status=error]", { hasText: "huge.bin" });
    await failed.waitFor();
    expect(await failed.textContent()).toContain("Too large");
  });

  it("renews an expired access token silently with the refresh token", async () => {
    const before = await page.evaluate(() => {
      const session = JSON.parse(localStorage.getItem("attic.session")!);
      const old = session.refresh_token;
      session.access_token = `${session.access_token.slice(0, -6)}AAAAAA`;
      localStorage.setItem("attic.session", JSON.stringify(session));
      return old as string;
    });
    await page.goto(s.url);
    await entry("hello.txt").waitFor();
    const after = await page.evaluate(() => JSON.parse(localStorage.getItem("attic.session")!).refresh_token);
    expect(after).not.toBe(before);
  });

  it("keeps the DOM small and the keyboard working in a folder of 10,000 entries", async () => {
    // Seeded through the directories service in-process (10,000 HTTP round trips would only test
    // patience), in transactions of 500 that leave the event loop free in between.
    const services = s.server.ctx.services;
    const actor = await services.auth.authenticateBearer(token);
    const bigId = services.directories.create(actor, { name: "Big" }).file.id;
    for (let at = 0; at < 10_000; at += 500) {
      s.server.ctx.db.transaction(() => {
        for (let i = at; i < at + 500; i++) {
          services.directories.create(actor, { name: `e${String(i).padStart(5, "0")}`, parent_id: bigId });
        }
      });
      await new Promise((r) => setImmediate(r));
    }
    await page.goto(`${s.url}/d/${bigId}`);
    await page.getByText("10,000 items").waitFor();
    expect(await page.locator("[role=option]").count()).toBeLessThan(200);
    await page.getByRole("listbox", { name: "Contents of Big" }).focus();
    await page.keyboard.press("End");
    await entry("e09999").waitFor();
    expect(await page.locator("[role=option]").count()).toBeLessThan(200);
    await page.keyboard.press("Enter");
    await page.locator('.crumbs [aria-current="page"]', { hasText: "e09999" }).waitFor();
  }, 120_000);

  it("fits a phone screen", async () => {
    await page.setViewportSize(PHONE);
    await page.goto(s.url);
    await entry("hello.txt").waitFor();
    await ui.shot("phone-files");
    await page.getByRole("button", { name: "Grid view" }).click();
    // The server's thumbnail, fetched with the Authorization header into a blob: URL.
    await page.waitForFunction(() =>
      document
        .querySelector<HTMLImageElement>('[data-name="picture.png"] .thumb img')
        ?.src.startsWith("blob:"),
    );
    await ui.shot("phone-grid");
    await page.getByRole("button", { name: "List view" }).click();
    await entry("picture.png").click();
    await dialog().locator("img.preview-image").waitFor();
    await ui.shot("phone-preview");
    await page.keyboard.press("Escape");
    await page.getByRole("button", { name: "Menu" }).click();
    await page.getByRole("link", { name: "Watched folders" }).waitFor();
    await ui.shot("phone-menu");
    await page.getByRole("link", { name: "Watched folders" }).click();
    await page.locator(".card.wf").first().waitFor();
    await ui.shot("phone-watched");
    await page.goto(`${s.url}/search?q=clip`);
    await page.locator('[data-name="clip.mp4"]').waitFor();
    await ui.shot("phone-search");
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth > window.innerWidth);
    expect(overflow).toBe(false);
    await page.emulateMedia({ colorScheme: "dark" });
    await page.goto(s.url);
    await entry("hello.txt").waitFor();
    await ui.shot("phone-files-dark");
    await page.emulateMedia({ colorScheme: "light" });
    await page.setViewportSize(LAPTOP);
  });

  it("signs out and revokes the refresh token", async () => {
    await page.goto(s.url);
    const refresh = await page.evaluate(
      () => JSON.parse(localStorage.getItem("attic.session")!).refresh_token,
    );
    await page.getByRole("button", { name: "Sign out" }).click();
    await page.getByRole("button", { name: "Sign in" }).waitFor();
    expect(await page.evaluate(() => localStorage.getItem("attic.session"))).toBeNull();
    expect((await s.api("POST", "/api/v1/auth/refresh", { body: { refresh_token: refresh } })).status).toBe(
      401,
    );
  });

  it("asks to change a generated admin password on first sign-in", async () => {
    const fresh = await startServer({ auth: { initial_admin_password: undefined } });
    try {
      const password = readFileSync(join(fresh.dataDir, "initial-admin-password"), "utf8").trim();
      const p = await ui.context.newPage();
      await p.goto(fresh.url);
      await p.getByLabel("Username").fill("admin");
      await p.getByLabel("Password").fill(password);
      await p.getByRole("button", { name: "Sign in" }).click();
      await p.getByRole("heading", { name: "Choose your own password" }).waitFor();
      await p.close();
    } finally {
      await fresh.close();
    }
  });

  it("loaded nothing from outside the server and broke no content security rule", () => {
    expect(ui.foreign).toEqual([]);
    expect(ui.consoleErrors.filter((e) => /Content Security Policy/i.test(e))).toEqual([]);
  });
});
