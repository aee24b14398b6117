import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createUser, type Session } from "../helpers/accounts.ts";
import { mkdir, upload } from "../helpers/files.ts";
import { startServer, type TestServer } from "../helpers/server.ts";
import { connectJson } from "../rpc/clients.ts";

/** Share links (issue 16): anonymous pages and downloads, ranges, passwords, expiry, limits, revocation, grants. */
describe("share links", () => {
  let s: TestServer;
  let admin: string;
  let mom: Session;
  let photos: { id: string };
  let beach: string;
  const make = async (token: string, body: unknown) => {
    const r = await s.api("POST", "/api/v1/shares", { token, body });
    return r;
  };
  const anon = (path: string, headers: Record<string, string> = {}) =>
    fetch(s.url + path, { headers, redirect: "manual" });

  beforeAll(async () => {
    s = await startServer();
    admin = await s.login();
    mom = await createUser(s, admin, "sharemom");
    photos = await mkdir(s, admin, "Holiday");
    beach = (await upload(s, admin, "beach.txt", "sun and sand", { parentId: photos.id })).body.id;
    await mkdir(s, admin, "Day 2", photos.id);
  });
  afterAll(() => s.close());

  it("shares a file: a page, a download with ranges, no account needed", async () => {
    const r = await make(admin, { file_id: beach });
    expect(r.status).toBe(201);
    expect(r.body.url).toBe(`/s/${r.body.token}`);
    const pageRes = await anon(r.body.url);
    expect(pageRes.status).toBe(200);
    expect(pageRes.headers.get("content-security-policy")).toContain("default-src 'none'");
    const html = await pageRes.text();
    expect(html).toContain("beach.txt");
    expect(html).not.toContain("<script");
    const part = await anon(r.body.download_url, { range: "bytes=4-6" });
    expect(part.status).toBe(206);
    expect(await part.text()).toBe("and");
    const whole = await anon(r.body.download_url);
    expect(await whole.text()).toBe("sun and sand");
    expect(whole.headers.get("content-disposition")).toContain("attachment");
    const listed = await s.api("GET", "/api/v1/shares", { token: admin });
    const mine = listed.body.shares.find((x: { id: string }) => x.id === r.body.id);
    expect(mine.download_count).toBe(1);
    expect(mine.last_accessed_at).not.toBeNull();
    expect(mine).not.toHaveProperty("token");
  });

  it("shares a folder: its page lists members, a zip, and member downloads stay inside it", async () => {
    const r = await make(admin, { directory_id: photos.id });
    const html = await (await anon(r.body.url)).text();
    expect(html).toContain("beach.txt");
    expect(html).toContain("Day 2");
    const zip = await anon(`${r.body.url}/zip`);
    expect(zip.status).toBe(200);
    expect(zip.headers.get("content-type")).toBe("application/zip");
    expect((await anon(`${r.body.url}/f/${beach}`)).status).toBe(200);
    const elsewhere = (await upload(s, admin, "private.txt", "not shared")).body.id;
    expect((await anon(`${r.body.url}/f/${elsewhere}`)).status).toBe(404);
  });

  it("asks for a password by header or form, and counts wrong guesses", async () => {
    const r = await make(admin, { file_id: beach, password: "grandma-2024" });
    expect((await anon(r.body.download_url)).status).toBe(401);
    expect((await anon(r.body.download_url, { "x-share-password": "nope" })).status).toBe(401);
    expect((await anon(r.body.download_url, { "x-share-password": "grandma-2024" })).status).toBe(200);
    const form = await anon(r.body.url, { accept: "text/html" });
    expect(form.status).toBe(401);
    expect(await form.text()).toContain('type="password"');
    const posted = await fetch(s.url + r.body.url, {
      method: "POST",
      body: new URLSearchParams({ password: "grandma-2024" }),
      redirect: "manual",
    });
    expect(posted.status).toBe(303);
    const cookie = posted.headers.get("set-cookie") ?? "";
    expect(cookie).toContain("HttpOnly");
    expect(cookie).toContain(`Path=${r.body.url}`);
    expect(cookie).not.toContain("grandma");
    const withCookie = await anon(r.body.download_url, { cookie: cookie.split(";")[0]! });
    expect(withCookie.status).toBe(200);
  });

  it("ends links on expiry, download limit, revocation, and when the sharer loses the right", async () => {
    const limited = await make(admin, { file_id: beach, max_downloads: 1 });
    expect((await anon(limited.body.download_url)).status).toBe(200);
    expect((await anon(limited.body.download_url)).status).toBe(410);
    expect((await make(admin, { file_id: beach, expires_at: "2001-01-01T00:00:00Z" })).status).toBe(400);
    const revoked = await make(admin, { file_id: beach });
    expect((await s.api("DELETE", `/api/v1/shares/${revoked.body.id}`, { token: admin })).status).toBe(200);
    expect((await anon(revoked.body.download_url)).status).toBe(404);
    // Mom shares what she may read; when the folder is closed to her, her link dies.
    const momLink = await make(mom.token, { directory_id: photos.id });
    expect(momLink.status).toBe(201);
    expect((await anon(momLink.body.url)).status).toBe(200);
    await s.api("PUT", "/api/v1/grants", { token: admin, body: { directory_id: photos.id, grants: [] } });
    expect((await anon(momLink.body.url)).status).toBe(404);
    expect((await make(mom.token, { file_id: beach })).status).toBe(404);
    // Others cannot revoke a share they do not own; the admin sees it.
    expect((await s.api("DELETE", `/api/v1/shares/${limited.body.id}`, { token: mom.token })).status).toBe(
      404,
    );
    const all = await s.api("GET", "/api/v1/shares", { token: admin });
    expect(all.body.shares.map((x: { id: string }) => x.id)).toContain(momLink.body.id);
    expect((await anon("/s/not-a-real-token-at-all-000")).status).toBe(404);
  });

  it("counts max_downloads exactly: concurrent downloads, and ranges that start at byte 0 however written", async () => {
    const big = (await upload(s, admin, "big.bin", Buffer.alloc(2_000_000, 7), { parentId: photos.id })).body
      .id;
    const once = await make(admin, { file_id: big, max_downloads: 1, password: "grandma-2024" });
    const got = await Promise.all(
      Array.from({ length: 16 }, async () => {
        const r = await anon(once.body.download_url, { "x-share-password": "grandma-2024" });
        await r.arrayBuffer();
        return r.status;
      }),
    );
    expect(got.filter((st) => st === 200)).toHaveLength(1);
    expect(got.filter((st) => st === 410)).toHaveLength(15);
    // A suffix range as long as the file is the whole file: it counts like a download.
    const suffix = await make(admin, { file_id: big, max_downloads: 1 });
    const whole = await anon(suffix.body.download_url, { range: "bytes=-2000000" });
    expect([whole.status, (await whole.arrayBuffer()).byteLength]).toEqual([206, 2_000_000]);
    expect((await anon(suffix.body.download_url, { range: "bytes=-2000000" })).status).toBe(410);
    // A HEAD, a 304 or a 416 sends no bytes: not a download. A player's later range is not one either.
    const probe = await make(admin, { file_id: big, max_downloads: 1 });
    const head = await fetch(s.url + probe.body.download_url, { method: "HEAD" });
    expect(head.status).toBe(200);
    expect((await anon(probe.body.download_url, { range: "bytes=5000000-" })).status).toBe(416);
    const seek = await anon(probe.body.download_url, { range: "bytes=1000-1999" });
    expect([seek.status, (await seek.arrayBuffer()).byteLength]).toEqual([206, 1000]);
    const full = await anon(probe.body.download_url);
    expect([full.status, (await full.arrayBuffer()).byteLength]).toEqual([200, 2_000_000]);
    expect((await anon(probe.body.download_url)).status).toBe(410);
    // A folder's zip: a HEAD is not a download either.
    const folder = await make(admin, { directory_id: photos.id, max_downloads: 1 });
    expect((await fetch(`${s.url}${folder.body.url}/zip`, { method: "HEAD" })).status).toBe(200);
    const zip = await anon(`${folder.body.url}/zip`);
    expect(zip.status).toBe(200);
    await zip.arrayBuffer();
    expect((await anon(`${folder.body.url}/zip`)).status).toBe(410);
  });

  it("takes uploads into a drop folder, never elsewhere, and only when the link says so", async () => {
    const drop = await mkdir(s, admin, "Drop box");
    const elsewhere = await mkdir(s, admin, "Elsewhere");
    const link = await make(admin, { directory_id: drop.id, allow_upload: true });
    expect([link.status, link.body.error?.message]).toEqual([201, undefined]);
    expect(link.body.allow_upload).toBe(true);
    const page = await (await anon(link.body.url)).text();
    expect(page).toContain('enctype="multipart/form-data"');
    const form = new FormData();
    form.set("parent_id", elsewhere.id);
    form.set("file", new Blob([Buffer.from("from grandma")]), "hello.txt");
    const sent = await fetch(`${s.url}${link.body.url}/upload`, { method: "POST", body: form });
    expect([sent.status, await sent.text()]).toEqual([201, expect.any(String)]);
    const inDrop = await s.api("GET", `/api/v1/directories/${drop.id}/children`, { token: admin });
    expect(inDrop.body.files.map((f: { name: string }) => f.name)).toEqual(["hello.txt"]);
    // A drop folder shows nothing of what was sent: not on its page, not as downloads.
    const after = await (await anon(link.body.url)).text();
    expect(after).not.toContain("hello.txt");
    expect(after).toContain('enctype="multipart/form-data"');
    for (const path of ["/download", "/zip", `/f/${inDrop.body.files[0].id}`, `?dir=${drop.id}`]) {
      const r = await anon(`${link.body.url}${path}`);
      expect([path, r.status]).toEqual([path, path.startsWith("?") ? 200 : 404]);
      if (path.startsWith("?")) expect(await r.text()).not.toContain("hello.txt");
    }
    const inElsewhere = await s.api("GET", `/api/v1/directories/${elsewhere.id}/children`, { token: admin });
    expect(inElsewhere.body.total).toBe(0);
    // The same name again is kept under a number, and the sender is told nothing of the first.
    const again = new FormData();
    again.set("file", new Blob([Buffer.from("x")]), "hello.txt");
    const second = await fetch(`${s.url}${link.body.url}/upload`, { method: "POST", body: again });
    const answer = await second.text();
    expect(second.status).toBe(201);
    expect(answer).not.toContain("(2)");
    expect(answer).not.toContain(inDrop.body.files[0].id);
    const both = await s.api("GET", `/api/v1/directories/${drop.id}/children`, { token: admin });
    expect(both.body.files.map((f: { name: string }) => f.name).sort()).toEqual([
      "hello (2).txt",
      "hello.txt",
    ]);
    const readOnly = await make(admin, { directory_id: drop.id });
    const refused = new FormData();
    refused.set("file", new Blob([Buffer.from("x")]), "x.txt");
    expect(
      (await fetch(`${s.url}${readOnly.body.url}/upload`, { method: "POST", body: refused })).status,
    ).toBe(403);
    expect((await make(admin, { file_id: beach, allow_upload: true })).status).toBe(400);
  });

  it("stops a drop folder's uploads when its creator may no longer write files, whatever the folder's grants", async () => {
    const drop = await mkdir(s, admin, "Mom's drop");
    await s.api("PUT", "/api/v1/grants", {
      token: admin,
      body: {
        directory_id: drop.id,
        grants: [{ subject_type: "user", subject_id: mom.userId, level: "write" }],
      },
    });
    const link = await make(mom.token, { directory_id: drop.id, allow_upload: true });
    expect(link.status).toBe(201);
    const send = (name: string) => {
      const form = new FormData();
      form.set("file", new Blob([Buffer.from("x")]), name);
      return fetch(`${s.url}${link.body.url}/upload`, { method: "POST", body: form });
    };
    expect((await send("before.txt")).status).toBe(201);
    // Mom becomes a reader: her folder grant still says write, her role no longer lets her write.
    const reader = await s.api("POST", "/api/v1/roles", {
      token: admin,
      body: { name: "Reader only", permissions: ["file:read"] },
    });
    expect(reader.status).toBe(201);
    expect(
      (await s.api("PUT", `/api/v1/users/${mom.userId}`, { token: admin, body: { role: "Reader only" } }))
        .status,
    ).toBe(200);
    expect((await upload(s, mom.token, "direct.txt", "x", { parentId: drop.id })).status).toBe(403);
    expect((await send("after.txt")).status).toBe(403);
    const inDrop = await s.api("GET", `/api/v1/directories/${drop.id}/children`, { token: admin });
    expect(inDrop.body.files.map((f: { name: string }) => f.name)).toEqual(["before.txt"]);
  });

  it("lists a link to a personal folder's file to the organization admin without the file's name", async () => {
    const dad = await createUser(s, admin, "sharedad");
    const home = (await s.api("GET", "/api/v1/auth/profile", { token: dad.token })).body.home_directory_id;
    const diary = await upload(s, dad.token, "dear-diary.txt", "private", { parentId: home });
    const link = await make(dad.token, { file_id: diary.body.id });
    expect(link.status).toBe(201);
    const byAdmin = await s.api("GET", "/api/v1/shares", { token: admin });
    const seen = byAdmin.body.shares.find((x: { id: string }) => x.id === link.body.id);
    expect(seen).toMatchObject({ created_by: dad.userId });
    expect(byAdmin.text).not.toContain("dear-diary");
    const byDad = await s.api("GET", "/api/v1/shares", { token: dad.token });
    expect(byDad.body.shares.find((x: { id: string }) => x.id === link.body.id).name).toBe("dear-diary.txt");
    // The admin may still revoke it.
    expect((await s.api("DELETE", `/api/v1/shares/${link.body.id}`, { token: admin })).status).toBe(200);
  });

  it("lists a big shared folder a page at a time, so every file is reachable", async () => {
    const big = await mkdir(s, admin, "Every photo");
    const names = Array.from({ length: 1001 }, (_, i) => `p${String(i).padStart(4, "0")}.jpg`);
    for (let i = 0; i < names.length; i += 20) {
      await Promise.all(names.slice(i, i + 20).map((n) => upload(s, admin, n, "x", { parentId: big.id })));
    }
    const link = await make(admin, { directory_id: big.id });
    const first = await (await anon(link.body.url)).text();
    const shown = (html: string) => names.filter((n) => html.includes(`>${n}<`));
    expect(shown(first)).toHaveLength(1000);
    expect(first).toContain(`href="${link.body.url}?page=2"`);
    const second = await (await anon(`${link.body.url}?page=2`)).text();
    expect(shown(second)).toHaveLength(1);
    expect([...shown(first), ...shown(second)].sort()).toEqual(names);
    // In a subfolder, "Download all" is that subfolder's zip.
    const sub = await mkdir(s, admin, "Sub", big.id);
    const subPage = await (await anon(`${link.body.url}?dir=${sub.id}`)).text();
    expect(subPage).toContain(`href="${link.body.url}/zip?dir=${sub.id}"`);
  });

  it("cuts off a download under way, of a file or a zip, when its link is revoked", async () => {
    const big = Buffer.alloc(24 * 1024 * 1024, 3);
    const dir = await mkdir(s, admin, "Big things");
    const file = (await upload(s, admin, "huge.bin", big, { parentId: dir.id })).body.id;
    for (const [what, body] of [
      ["file", { file_id: file }],
      ["zip", { directory_id: dir.id }],
    ] as const) {
      const link = await make(admin, body);
      const res = await anon(link.body.download_url);
      expect(res.status).toBe(200);
      const reader = (res.body as ReadableStream<Uint8Array>).getReader();
      let got = (await reader.read()).value?.length ?? 0;
      expect((await s.api("DELETE", `/api/v1/shares/${link.body.id}`, { token: admin })).status).toBe(200);
      const ended = await (async () => {
        try {
          for (;;) {
            const { done, value } = await reader.read();
            if (done) return "complete";
            got += value.length;
          }
        } catch {
          return "cut off";
        }
      })();
      expect([what, ended]).toEqual([what, "cut off"]);
      expect(got).toBeLessThan(big.length);
    }
  });
});

/** Wrong share passwords are limited per address like logins, a burst of them too. */
describe("share link passwords under the login limit", () => {
  let s: TestServer;
  let admin: string;
  beforeAll(async () => {
    // The default password hash (not the tests' cheap one): a guess takes long enough for others to arrive meanwhile.
    s = await startServer({
      rate_limit: { login_per_minute: 4 },
      auth: { password_hash_memory_kib: 19456, password_hash_iterations: 2 },
    });
    admin = await s.login();
  });
  afterAll(() => s.close());

  it("answers 429 to guesses past the limit, even sent all at once", async () => {
    const file = (await upload(s, admin, "locked.txt", "locked")).body.id;
    const link = await s.api("POST", "/api/v1/shares", {
      token: admin,
      body: { file_id: file, password: "the-real-one" },
    });
    const guesses = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        fetch(s.url + link.body.download_url, { headers: { "x-share-password": `guess-${i}` } }).then(
          (r) => r.status,
        ),
      ),
    );
    // The admin's login above took one of the 4.
    expect(guesses.filter((st) => st === 401).length).toBeLessThanOrEqual(3);
    expect(guesses.filter((st) => st === 429).length).toBeGreaterThanOrEqual(17);
    const right = await fetch(s.url + link.body.download_url, {
      headers: { "x-share-password": "the-real-one" },
    });
    expect(right.status).toBe(429);
  });
});

/** Managing share links over RPC answers as REST does (same service). */
describe("share links over RPC", () => {
  let s: TestServer;
  let admin: string;
  beforeAll(async () => {
    s = await startServer();
    admin = await s.login();
  });
  afterAll(() => s.close());

  it("creates, lists and revokes through attic.v1.ShareService", async () => {
    const file = (await upload(s, admin, "rpc.txt", "over rpc")).body.id;
    const created = await connectJson(
      s.url,
      "attic.v1.ShareService/CreateShare",
      { file_id: file, max_downloads: 5 },
      admin,
    );
    expect(created.status).toBe(200);
    expect(created.body.url).toBe(`/s/${created.body.token}`);
    expect(created.body.share).toMatchObject({ name: "rpc.txt", type: "file", max_downloads: "5" });
    expect(await (await fetch(s.url + created.body.download_url)).text()).toBe("over rpc");
    const listed = await connectJson(s.url, "attic.v1.ShareService/ListShares", {}, admin);
    expect(listed.body.shares.map((x: { id: string }) => x.id)).toContain(created.body.share.id);
    const both = await connectJson(s.url, "attic.v1.ShareService/CreateShare", {}, admin);
    expect([both.status, both.body.code]).toEqual([400, "invalid_argument"]);
    const gone = await connectJson(
      s.url,
      "attic.v1.ShareService/DeleteShare",
      { id: created.body.share.id },
      admin,
    );
    expect(gone.body.success).toBe(true);
    expect((await fetch(s.url + created.body.download_url)).status).toBe(404);
  });
});
