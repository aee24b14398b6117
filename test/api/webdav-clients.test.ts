import { execFile } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { missing } from "../helpers/programs.ts";
import { ADMIN_PASSWORD, startServer, type TestServer } from "../helpers/server.ts";

const run = promisify(execFile);

/**
 * Real WebDAV clients against /dav/ (issue 17): the litmus conformance suite
 * (basic, copymove, props, locks, http) must pass with no failure, and
 * rclone must round-trip a file byte-exact. CI installs both.
 */
describe.skipIf(missing("WebDAV clients", "litmus", "rclone"))("WebDAV clients", () => {
  let s: TestServer;
  let work: string;

  beforeAll(async () => {
    s = await startServer();
    work = mkdtempSync(join(tmpdir(), "attic-dav-"));
  });
  afterAll(async () => {
    await s.close();
    rmSync(work, { recursive: true, force: true });
  });

  it("passes every litmus suite", async () => {
    const { stdout } = await run("litmus", [`${s.url}/dav/`, "admin", ADMIN_PASSWORD], {
      cwd: work,
      timeout: 120_000,
      env: { ...process.env, TESTS: "basic copymove props locks http" },
    }).catch((err: { stdout?: string }) => ({ stdout: err.stdout ?? String(err) }));
    const summaries = [
      ...stdout.matchAll(/summary for `(\w+)': of (\d+) tests run: (\d+) passed, (\d+) failed/g),
    ];
    expect(summaries.map((m) => m[1])).toEqual(["basic", "copymove", "props", "locks", "http"]);
    for (const m of summaries) expect([m[1], m[4]]).toEqual([m[1], "0"]);
  }, 150_000);

  it("round-trips a file through rclone byte-exact", async () => {
    const { stdout: obscured } = await run("rclone", ["obscure", ADMIN_PASSWORD]);
    const remote = `:webdav,url='${s.url}/dav/',vendor=other,user=admin,pass='${obscured.trim()}':`;
    const src = join(work, "up.bin");
    const back = join(work, "down.bin");
    const bytes = randomBytes(3 * 1024 * 1024 + 17);
    writeFileSync(src, bytes);
    const flags = ["--config", "/dev/null", "--retries", "1"];
    await run("rclone", ["mkdir", `${remote}Backups`, ...flags]);
    await run("rclone", ["copyto", src, `${remote}Backups/up.bin`, ...flags]);
    const { stdout: listing } = await run("rclone", ["lsf", `${remote}Backups`, ...flags]);
    expect(listing.trim()).toBe("up.bin");
    await run("rclone", ["copyto", `${remote}Backups/up.bin`, back, ...flags]);
    expect(readFileSync(back).equals(bytes)).toBe(true);
    await run("rclone", ["moveto", `${remote}Backups/up.bin`, `${remote}Backups/renamed.bin`, ...flags]);
    const { stdout: after } = await run("rclone", ["lsf", `${remote}Backups`, ...flags]);
    expect(after.trim()).toBe("renamed.bin");
  }, 60_000);
});
