import { mkdirSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createUser } from "../helpers/accounts.ts";
import { startServer, type TestServer } from "../helpers/server.ts";
import { hostTree } from "./watched.helpers.ts";

describe("path suggestions", () => {
  let s: TestServer;
  let token: string;
  let root: string;
  const suggest = (prefix: string | undefined, extra = "", t: string | null = token) =>
    s.api(
      "GET",
      `/api/v1/filesystem/path-suggestions?${prefix === undefined ? "" : `prefix=${encodeURIComponent(prefix)}`}${extra}`,
      { token: t ?? undefined },
    );

  beforeAll(async () => {
    s = await startServer();
    token = await s.login();
    root = hostTree({ "file-movies.txt": "not a dir" });
    for (const d of ["Movies", "Music", "music-lower", "Photos", ".hidden", "Mz"]) mkdirSync(join(root, d));
    for (let i = 0; i < 60; i++) mkdirSync(join(root, "Photos", `d${String(i).padStart(2, "0")}`));
    symlinkSync(join(root, "Photos"), join(root, "Mlink"));
    symlinkSync("/etc", join(root, "Metc"));
    symlinkSync("/etc", join(root, "to-etc"));
    writeFileSync(join(root, "Mfile"), "x");
  });
  afterAll(async () => {
    await s.close();
    rmSync(root, { recursive: true, force: true });
  });

  it("returns only directories matching the last segment, alphabetically", async () => {
    const r = await suggest(`${root}/M`);
    expect(r.status).toBe(200);
    expect(r.body.suggestions).toEqual([`${root}/Mlink`, `${root}/Movies`, `${root}/Music`, `${root}/Mz`]);
    const all = await suggest(`${root}/`);
    expect(all.body.suggestions).toEqual(
      ["Mlink", "Movies", "Music", "Mz", "Photos", "music-lower"].map((n) => `${root}/${n}`),
    );
    expect((await suggest(`${root}/.h`)).body.suggestions).toEqual([`${root}/.hidden`]);
    expect((await suggest(`${root}/Nothing`)).body.suggestions).toEqual([]);
  });

  it("normalizes // and . in the prefix", async () => {
    const r = await suggest(`${root}//./Mu`);
    expect(r.body.suggestions).toEqual([`${root}/Music`]);
  });

  it("honours limit (default 10, 1-50) and rejects others with 400", async () => {
    expect((await suggest(`${root}/Photos/`)).body.suggestions).toHaveLength(10);
    const fifty = await suggest(`${root}/Photos/`, "&limit=50");
    expect(fifty.body.suggestions).toHaveLength(50);
    expect(fifty.body.suggestions[0]).toBe(`${root}/Photos/d00`);
    expect((await suggest(`${root}/Photos/d`, "&limit=1")).body.suggestions).toEqual([`${root}/Photos/d00`]);
    for (const bad of ["0", "51", "abc", "-1", "2.5"]) {
      const r = await suggest(`${root}/`, `&limit=${bad}`);
      expect([bad, r.status, r.body.error.code]).toEqual([bad, 400, "ERR_VALIDATION"]);
    }
  });

  it("rejects missing, relative and '..' prefixes with 400, missing directories with 404", async () => {
    expect((await suggest(undefined)).status).toBe(400);
    expect((await suggest("")).status).toBe(400);
    expect((await suggest("relative/dir")).status).toBe(400);
    expect((await suggest(`${root}/../`)).status).toBe(400);
    expect((await suggest(`${root}/Movies/..`)).status).toBe(400);
    const missing = await suggest(`${root}/no-such-dir/x`);
    expect([missing.status, missing.body.error.code]).toEqual([404, "ERR_NOT_FOUND"]);
    expect((await suggest(`${root}/file-movies.txt/`)).status).toBe(404);
  });

  it("blocks system directories after resolving links, and hides them from listings", async () => {
    for (const p of [
      "/etc/",
      "/etc",
      "/proc/",
      "/proc/self/",
      "//etc/./ssl",
      "/sys/",
      "/dev/",
      "/root/",
      "/boot/",
    ]) {
      const r = await suggest(p);
      expect([p, r.status]).toEqual([p, 403]);
      expect(r.body.error.code).toBe("ERR_FORBIDDEN_PATH");
    }
    const viaLink = await suggest(`${root}/to-etc/`);
    expect([viaLink.status, viaLink.body.error.code]).toEqual([403, "ERR_FORBIDDEN_PATH"]);
    const top = await suggest("/");
    expect(top.status).toBe(200);
    for (const blocked of ["/etc", "/proc", "/sys", "/dev", "/root", "/boot"]) {
      expect(top.body.suggestions).not.toContain(blocked);
    }
    expect((await suggest("/tm")).body.suggestions).toContain("/tmp");
  });

  it("needs authentication and an instance admin", async () => {
    expect((await suggest("/", "", null)).status).toBe(401);
    const noRole = await s.api("POST", "/api/v1/roles", {
      token,
      body: { name: "NoOrgRead", description: "files only", permissions: ["file:read"] },
    });
    expect(noRole.status).toBe(201);
    const user = await createUser(s, token, "no-org-read", "NoOrgRead");
    const r = await suggest("/", "", user.token);
    expect([r.status, r.body.error.code]).toEqual([403, "ERR_PERMISSION_DENIED"]);
    const member = await createUser(s, token, "plain-member");
    expect((await suggest("/", "", member.token)).status).toBe(403);
    // An organization's own Admin (a self-registered stranger, with registration on) is not enough either.
    const orgAdmin = await createUser(s, token, "org-admin-only", "Admin");
    const r2 = await suggest("/", "", orgAdmin.token);
    expect([r2.status, r2.body.error.code]).toEqual([403, "ERR_PERMISSION_DENIED"]);
  });

  it("refuses /proc/self/cwd and never lists the data dir", async () => {
    for (const prefix of ["/proc/self/cwd/", "/proc/self/root/etc/", "/proc/self/cwd"]) {
      const r = await suggest(prefix);
      expect([prefix, r.status]).toEqual([prefix, 403]);
    }
    // The data dir's own name as the prefix: before, it came back as a suggestion.
    const listed = await suggest(s.dataDir);
    expect(listed.status === 403 || !listed.body.suggestions.includes(s.dataDir), listed.text).toBe(true);
    const inside = await suggest(`${s.dataDir}/`);
    expect(inside.status).toBe(403);
  });
});
