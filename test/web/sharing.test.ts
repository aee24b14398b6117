import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildWeb } from "../../scripts/build-web.ts";
import { createUser, GOOD_PASSWORD, type Session } from "../helpers/accounts.ts";
import { mkdir, upload } from "../helpers/files.ts";
import { missing } from "../helpers/programs.ts";
import { ADMIN_PASSWORD, startServer, type TestServer } from "../helpers/server.ts";
import { openBrowser, type UiBrowser } from "./browser.ts";

/**
 * Family privacy in the UI (issue 19), in Debian's chromium: the admin shares
 * folders from the sharing dialog ("Photos: parents edit, kids view; Tax:
 * parents only"), then a kid signs in and sees only what they may, read-only
 * where they may only read, with a private "My files".
 */
describe.skipIf(missing("sharing UI", "/usr/bin/chromium"))("sharing UI", () => {
  let s: TestServer;
  let ui: UiBrowser;
  let page: Page;
  let admin: string;
  let kid: Session;

  beforeAll(async () => {
    await buildWeb();
    s = await startServer();
    admin = await s.login();
    const mom = await createUser(s, admin, "mom");
    kid = await createUser(s, admin, "kid");
    for (const [name, who] of [
      ["parents", mom],
      ["kids", kid],
    ] as const) {
      const g = await s.api("POST", "/api/v1/groups", { token: admin, body: { name } });
      await s.api("POST", `/api/v1/groups/${g.body.id}/members`, {
        token: admin,
        body: { user_id: who.userId },
      });
    }
    const photos = await mkdir(s, admin, "Photos");
    const tax = await mkdir(s, admin, "Tax");
    await upload(s, admin, "beach.txt", "sand", { parentId: photos.id });
    await upload(s, admin, "hills.txt", "grass", { parentId: photos.id });
    await upload(s, admin, "lake.txt", "water", { parentId: photos.id });
    await upload(s, admin, "tax-notes.txt", "numbers", { parentId: tax.id });
    ui = await openBrowser(s.url);
    page = ui.page;
  }, 120_000);

  afterAll(async () => {
    await ui?.close();
    await s?.close();
  });

  const signIn = async (username: string, password: string) => {
    await page.goto(s.url);
    await page.getByLabel("Username").fill(username);
    await page.getByLabel("Password").fill(password);
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.getByRole("listbox", { name: "Your files" }).waitFor();
  };
  const openFolder = async (name: string) => {
    await page.locator(`[role=option][data-name="${name}"]`).dblclick();
    await page.getByRole("listbox", { name: `Contents of ${name}` }).waitFor();
  };
  const share = async (entries: [subject: string, level: string][]) => {
    await page.getByRole("button", { name: "Share" }).click();
    const dialog = page.locator("dialog[open]");
    await dialog.getByRole("list", { name: "Who has access" }).waitFor();
    // Start from nobody: the inherited "Everyone" row goes.
    while ((await dialog.getByRole("button", { name: /^Remove / }).count()) > 0) {
      await dialog
        .getByRole("button", { name: /^Remove / })
        .first()
        .click();
    }
    for (const [subject, level] of entries) {
      await dialog.getByLabel("Add a person or group").selectOption({ label: subject });
      await dialog.getByLabel("Access to add").selectOption({ label: level });
      await dialog.getByRole("button", { name: "Add" }).click();
    }
    await dialog.getByRole("button", { name: "Save" }).click();
    await dialog.getByText("This folder has its own list.").waitFor();
    await dialog.getByRole("button", { name: "Close" }).click();
  };

  it("lets the admin share Photos and lock Tax from the sharing dialog", async () => {
    await signIn("admin", ADMIN_PASSWORD);
    await openFolder("Photos");
    await share([
      ["parents (group)", "Can edit"],
      ["kids (group)", "Can view"],
    ]);
    await page.goto(s.url);
    await page.getByRole("listbox", { name: "Your files" }).waitFor();
    await openFolder("Tax");
    await share([["parents (group)", "Can manage"]]);
    const tax = await s.api("GET", "/api/v1/files", { token: kid.token });
    expect(tax.body.files.map((f: { name: string }) => f.name)).toEqual(["Photos"]);
    await ui.shot("laptop-sharing");
    await page.getByRole("button", { name: "Sign out" }).click();
    // Signing out ends the session on the server first: wait until the sign-in form is back.
    await page.getByLabel("Username").waitFor();
  });

  it("shows a kid only what they may, view-only where they may only read", async () => {
    await signIn("kid", GOOD_PASSWORD);
    const listing = page.getByRole("listbox", { name: "Your files" });
    await listing.locator('[role=option][data-name="Photos"]').waitFor();
    expect(await listing.locator('[role=option][data-name="Tax"]').count()).toBe(0);
    await openFolder("Photos");
    await page.getByText("View only").waitFor();
    expect(await page.getByRole("button", { name: "Upload", exact: true }).count()).toBe(0);
    expect(await page.getByRole("button", { name: "Share" }).count()).toBe(0);
    // My files: private, writable, shareable by its owner.
    await page.getByRole("link", { name: "My files" }).click();
    await page.getByRole("button", { name: "Share" }).waitFor();
    await page.getByRole("button", { name: "Upload", exact: true }).waitFor();
    expect(await page.locator(".crumbs").textContent()).toContain("My files");
    await ui.shot("laptop-member-view");
    expect(ui.consoleErrors.filter((e) => !e.includes("404"))).toEqual([]);
  });

  it("downloads a folder as a zip of what the kid may read", async () => {
    await page.getByRole("link", { name: "Shared files", exact: true }).click();
    const photos = page.locator('[role=option][data-name="Photos"]');
    await photos.locator(".check").click();
    const [download] = await Promise.all([
      page.waitForEvent("download"),
      page.getByRole("button", { name: "Download as zip" }).click(),
    ]);
    expect(download.suggestedFilename()).toBe("Photos.zip");
    const bytes = readFileSync((await download.path())!);
    expect(bytes.subarray(0, 2).toString()).toBe("PK");
    expect(bytes.includes(Buffer.from("Photos/beach.txt"))).toBe(true);
    expect(bytes.includes(Buffer.from("sand"))).toBe(true);
  });

  it("makes a link for grandma and opens it in a fresh browser without an account", async () => {
    await page.locator('[role=option][data-name="Photos"]').dblclick();
    await page.getByRole("listbox", { name: "Contents of Photos" }).waitFor();
    await page.locator('[role=option][data-name="beach.txt"]').locator(".check").click();
    await page.getByRole("button", { name: "Get link" }).click();
    const dialog = page.locator("dialog[open]");
    await dialog.getByRole("button", { name: "Create link" }).click();
    const link = await dialog.getByLabel("Share link").inputValue();
    expect(link).toMatch(new RegExp(`^${s.url}/s/[A-Za-z0-9_-]+$`));
    await dialog.getByText("0 downloads").waitFor();
    const fresh = await ui.browser.newContext();
    try {
      const grandma = await fresh.newPage();
      await grandma.goto(link);
      await grandma.getByRole("heading", { name: "beach.txt" }).waitFor();
      const [download] = await Promise.all([
        grandma.waitForEvent("download"),
        grandma.getByRole("link", { name: "Download" }).click(),
      ]);
      expect(download.suggestedFilename()).toBe("beach.txt");
      expect(readFileSync((await download.path())!, "utf8")).toBe("sand");
    } finally {
      await fresh.close();
    }
  });

  it("uploads a big file resumably (tus), going on after the network drops", async () => {
    await page.locator("dialog[open]").getByRole("button", { name: "Close" }).click();
    await page.getByRole("link", { name: "My files" }).click();
    await page.getByRole("button", { name: "Upload", exact: true }).waitFor();
    const tusRequests: string[] = [];
    page.on("request", (r) => {
      if (r.url().includes("/api/v1/uploads")) tusRequests.push(r.method());
    });
    const cdp = await ui.context.newCDPSession(page);
    await cdp.send("Network.enable");
    const throttle = (offline: boolean) =>
      cdp.send("Network.emulateNetworkConditions", {
        offline,
        latency: 0,
        downloadThroughput: -1,
        uploadThroughput: offline ? 0 : 6 * 1024 * 1024,
      });
    await throttle(false);
    // From a file on disk: Chromium reads it itself (a 34 MiB buffer sent over the
    // DevTools protocol can take longer than the action's timeout on a loaded machine).
    const bigDir = mkdtempSync(join(tmpdir(), "attic-big-"));
    const bigPath = join(bigDir, "big.bin");
    writeFileSync(bigPath, Buffer.alloc(34 * 1024 * 1024, 9));
    await page.setInputFiles('input[aria-label="Choose files to upload"]', bigPath);
    await page.waitForFunction(() => {
      const p = document.querySelector<HTMLProgressElement>('progress[aria-label="Progress of big.bin"]');
      return !!p && p.value > 0 && p.value < p.max;
    });
    await throttle(true);
    await new Promise((r) => setTimeout(r, 1500));
    await throttle(false);
    await page.locator(".upload[data-status=done]", { hasText: "big.bin" }).waitFor({ timeout: 60_000 });
    await cdp.detach();
    rmSync(bigDir, { recursive: true, force: true });
    expect(tusRequests).toContain("POST");
    expect(tusRequests).toContain("PATCH");
    const home = (await s.api("GET", "/api/v1/auth/profile", { token: kid.token })).body.home_directory_id;
    const listing = await s.api("GET", `/api/v1/directories/${home}/children`, { token: kid.token });
    const file = listing.body.files.find((f: { name: string }) => f.name === "big.bin");
    expect(file?.size).toBe(34 * 1024 * 1024);
  }, 90_000);

  it("downloads several selected files of a folder as one zip", async () => {
    await page.getByRole("link", { name: "Shared files", exact: true }).click();
    await page.locator('[role=option][data-name="Photos"]').dblclick();
    await page.getByRole("listbox", { name: "Contents of Photos" }).waitFor();
    for (const name of ["beach.txt", "lake.txt"]) {
      await page.locator(`[role=option][data-name="${name}"]`).locator(".check").click();
    }
    const [download] = await Promise.all([
      page.waitForEvent("download"),
      page.getByRole("button", { name: "Download as zip" }).click(),
    ]);
    expect(download.suggestedFilename()).toBe("Photos.zip");
    const bytes = readFileSync((await download.path())!);
    expect(bytes.includes(Buffer.from("beach.txt"))).toBe(true);
    expect(bytes.includes(Buffer.from("lake.txt"))).toBe(true);
    expect(bytes.includes(Buffer.from("hills.txt"))).toBe(false);
  });

  it("shares a whole folder by link: browsed and downloaded as a zip in a fresh browser", async () => {
    // Inside Photos the breadcrumb names the top too: the first link is the sidebar's.
    await page.getByRole("link", { name: "Shared files", exact: true }).first().click();
    await page.locator('[role=option][data-name="Photos"]').locator(".check").click();
    await page.getByRole("button", { name: "Get link" }).click();
    const dialog = page.locator("dialog[open]");
    await dialog.getByRole("button", { name: "Create link" }).click();
    const link = await dialog.getByLabel("Share link").inputValue();
    await dialog.getByRole("button", { name: "Close" }).click();
    const fresh = await ui.browser.newContext();
    try {
      const visitor = await fresh.newPage();
      await visitor.goto(link);
      await visitor.getByRole("heading", { name: "Photos" }).waitFor();
      await visitor.getByRole("link", { name: "lake.txt" }).waitFor();
      const [download] = await Promise.all([
        visitor.waitForEvent("download"),
        visitor.getByRole("link", { name: "Download all (zip)" }).click(),
      ]);
      expect(download.suggestedFilename()).toBe("Photos.zip");
      const bytes = readFileSync((await download.path())!);
      expect(bytes.includes(Buffer.from("Photos/lake.txt"))).toBe(true);
      expect(bytes.includes(Buffer.from("water"))).toBe(true);
    } finally {
      await fresh.close();
    }
  });

  it("lets someone without an account drop a file into a folder, and shows them nothing in it", async () => {
    const drop = await mkdir(s, admin, "For grandpa's photos");
    await upload(s, admin, "already-here.txt", "private", { parentId: drop.id });
    const link = await s.api("POST", "/api/v1/shares", {
      token: admin,
      body: { directory_id: drop.id, allow_upload: true },
    });
    expect(link.status).toBe(201);
    const fresh = await ui.browser.newContext();
    try {
      const grandpa = await fresh.newPage();
      await grandpa.goto(`${s.url}${link.body.url}`);
      await grandpa.getByRole("heading", { name: "For grandpa's photos" }).waitFor();
      expect(await grandpa.content()).not.toContain("already-here.txt");
      await grandpa.getByLabel("Add a file").setInputFiles({
        name: "garden.txt",
        mimeType: "text/plain",
        buffer: Buffer.from("roses"),
      });
      await grandpa.getByRole("button", { name: "Upload" }).click();
      await grandpa.getByRole("status").filter({ hasText: "your file was received" }).waitFor();
      expect(await grandpa.content()).not.toContain("garden.txt");
    } finally {
      await fresh.close();
    }
    const inside = await s.api("GET", `/api/v1/directories/${drop.id}/children`, { token: admin });
    const garden = inside.body.files.find((f: { name: string }) => f.name === "garden.txt");
    expect(garden?.size).toBe(5);
  });
});
