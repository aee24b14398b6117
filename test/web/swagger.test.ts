import { existsSync } from "node:fs";
import { chromium } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer, type TestServer } from "../helpers/server.ts";

const CHROMIUM = "/usr/bin/chromium";

describe("Swagger UI in a browser", () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startServer();
  });
  afterAll(() => s.close());

  it.skipIf(!existsSync(CHROMIUM))(
    "opens offline, authorizes with a bearer token and runs Try it out",
    async () => {
      const token = await s.login();
      const browser = await chromium.launch({
        executablePath: CHROMIUM,
        args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run"],
      });
      try {
        const page = await browser.newPage();
        const problems: string[] = [];
        const foreign: string[] = [];
        page.on("console", (m) => {
          if (m.type() === "error") problems.push(m.text());
        });
        page.on("pageerror", (e) => problems.push(e.message));
        page.on("request", (r) => {
          if (!r.url().startsWith(s.url) && !r.url().startsWith("data:")) foreign.push(r.url());
        });
        await page.goto(`${s.url}/swagger/index.html`);
        await page.waitForSelector(".opblock", { timeout: 20_000 });
        await page.click("button.authorize");
        await page.locator(".modal-ux input").first().fill(token);
        await page.locator(".modal-ux button.authorize").first().click();
        await page.locator(".modal-ux .close-modal").first().click();
        const op = page.locator("#operations-Settings-get_api_v1_settings_user");
        await op.locator(".opblock-summary").click();
        await op.locator("button.try-out__btn").click();
        await op.locator("button.execute").click();
        const status = op.locator(".live-responses-table tbody .response-col_status").first();
        await status.waitFor({ timeout: 10_000 });
        expect((await status.textContent())?.trim()).toBe("200");
        expect(problems).toEqual([]);
        expect(foreign).toEqual([]);
      } finally {
        await browser.close();
      }
    },
    60_000,
  );
});
