import { rmSync } from "node:fs";
import { request } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createUser, GOOD_PASSWORD } from "../helpers/accounts.ts";
import { mkdir, upload } from "../helpers/files.ts";
import { ADMIN_PASSWORD, startServer, type TestServer } from "../helpers/server.ts";
import { hostTree, waitFor, write } from "./watched.helpers.ts";

/** WebDAV at /dav/ (issue 17): every method, the service layer's rules, grants, and the clients' quirks. */
describe("WebDAV", () => {
  let s: TestServer;
  let admin: string;
  let host: string;
  const basic = (user: string, pass: string) => `Basic ${Buffer.from(`${user}:${pass}`).toString("base64")}`;
  const ADMIN = basic("admin", ADMIN_PASSWORD);
  const dav = (
    method: string,
    path: string,
    opts: { auth?: string; headers?: Record<string, string>; body?: string | Uint8Array } = {},
  ) =>
    fetch(`${s.url}/dav${path}`, {
      method,
      headers: { authorization: opts.auth ?? ADMIN, ...opts.headers },
      ...(opts.body !== undefined ? { body: opts.body as RequestInit["body"] } : {}),
    });
  const hrefs = (xml: string) =>
    [...xml.matchAll(/<D:href>([^<]*)<\/D:href>/g)].map((m) => decodeURIComponent(m[1]!));

  beforeAll(async () => {
    host = hostTree({ "drive/readme.txt": "on the drive" });
    s = await startServer({ watch: { allowed_roots: [host], debounce: 0.2 } });
    admin = await s.login();
    await createUser(s, admin, "davkid");
  });
  afterAll(async () => {
    await s.close();
    rmSync(host, { recursive: true, force: true });
  });

  it("announces class 1 and 2 and asks for Basic credentials", async () => {
    const options = await dav("OPTIONS", "/", { auth: "" });
    expect(options.status).toBe(200);
    expect(options.headers.get("dav")).toBe("1, 2");
    expect(options.headers.get("allow")).toContain("PROPFIND");
    const anonymous = await fetch(`${s.url}/dav/`, { method: "PROPFIND" });
    expect(anonymous.status).toBe(401);
    expect(anonymous.headers.get("www-authenticate")).toContain("Basic");
    expect((await dav("PROPFIND", "/", { auth: basic("admin", "wrong-password") })).status).toBe(401);
    expect(anonymous.headers.get("set-cookie")).toBeNull();
  });

  it("accepts an API key as the password, for devices", async () => {
    const key = await s.api("POST", "/api/v1/auth/api-keys", {
      token: admin,
      body: { name: "phone", permissions: ["file:read", "file:write"] },
    });
    expect(key.status).toBe(201);
    expect(
      (await dav("PROPFIND", "/", { auth: basic("admin", key.body.key), headers: { depth: "0" } })).status,
    ).toBe(207);
    // A key only works with its owner's name.
    expect((await dav("PROPFIND", "/", { auth: basic("davkid", key.body.key) })).status).toBe(401);
  });

  it("stores, lists, reads with ranges, overwrites into the trash", async () => {
    expect((await dav("MKCOL", "/Docs")).status).toBe(201);
    expect((await dav("MKCOL", "/Docs")).status).toBe(405);
    expect((await dav("MKCOL", "/Nope/Deeper")).status).toBe(409);
    expect((await dav("MKCOL", "/WithBody", { body: "<x/>" })).status).toBe(415);
    expect((await dav("PUT", "/Docs/été.txt", { body: "first version" })).status).toBe(201);
    expect((await dav("PUT", "/Missing/x.txt", { body: "x" })).status).toBe(409);
    const listing = await dav("PROPFIND", "/Docs/", { headers: { depth: "1" } });
    expect(listing.status).toBe(207);
    const xml = await listing.text();
    expect(hrefs(xml)).toEqual(["/dav/Docs/", "/dav/Docs/été.txt"]);
    expect(xml).toContain("<D:getcontentlength>13</D:getcontentlength>");
    expect((await dav("PROPFIND", "/", { headers: { depth: "infinity" } })).status).toBe(403);
    const got = await dav("GET", "/Docs/%C3%A9t%C3%A9.txt", { headers: { range: "bytes=6-" } });
    expect(got.status).toBe(206);
    expect(await got.text()).toBe("version");
    const etag = got.headers.get("etag");
    expect(xml).toContain(`<D:getetag>${etag?.replaceAll('"', "&#34;")}</D:getetag>`);
    expect((await dav("PUT", "/Docs/été.txt", { body: "second version" })).status).toBe(204);
    expect(await (await dav("GET", "/Docs/été.txt")).text()).toBe("second version");
    const trash = await s.api("GET", "/api/v1/trash", { token: admin });
    expect(trash.body.files.map((f: { name: string }) => f.name)).toContain("été.txt");
    // The same file through REST.
    const rest = await s.api("GET", "/api/v1/search?q=été", { token: admin });
    expect(rest.body.total).toBe(1);
  });

  it("keeps dead properties, and refuses to change live ones", async () => {
    const body = `<?xml version="1.0"?><D:propertyupdate xmlns:D="DAV:" xmlns:Z="urn:attic:test">
      <D:set><D:prop><Z:color>blue<Z:shade xmlns:Q="urn:q">dark</Z:shade></Z:color></D:prop></D:set></D:propertyupdate>`;
    expect((await dav("PROPPATCH", "/Docs/été.txt", { body })).status).toBe(207);
    const read = await dav("PROPFIND", "/Docs/été.txt", {
      headers: { depth: "0" },
      body: '<D:propfind xmlns:D="DAV:"><D:prop><Z:color xmlns:Z="urn:attic:test"/><Z:none xmlns:Z="urn:attic:test"/></D:prop></D:propfind>',
    });
    const xml = await read.text();
    expect(xml).toContain("blue");
    expect(xml).toContain("dark");
    expect(xml).toContain("HTTP/1.1 404 Not Found");
    const live = await dav("PROPPATCH", "/Docs/été.txt", {
      body: '<D:propertyupdate xmlns:D="DAV:"><D:set><D:prop><D:getcontentlength>1</D:getcontentlength></D:prop></D:set></D:propertyupdate>',
    });
    expect(await live.text()).toContain("403 Forbidden");
    // Entities and DTDs are refused outright.
    const dtd = await dav("PROPFIND", "/", {
      body: '<?xml version="1.0"?><!DOCTYPE x [<!ENTITY e SYSTEM "file:///etc/passwd">]><D:propfind xmlns:D="DAV:">&e;</D:propfind>',
    });
    expect(dtd.status).toBe(400);
    expect((await dav("PROPFIND", "/", { body: "<D:propfind" })).status).toBe(400);
  });

  it("copies and moves with Destination, Overwrite and Depth", async () => {
    const to = (p: string) => ({ destination: `${s.url}/dav${p}` });
    expect((await dav("COPY", "/Docs/été.txt", { headers: to("/Docs/copy.txt") })).status).toBe(201);
    expect(
      (await dav("COPY", "/Docs/été.txt", { headers: { ...to("/Docs/copy.txt"), overwrite: "F" } })).status,
    ).toBe(412);
    expect((await dav("COPY", "/Docs/été.txt", { headers: to("/Docs/copy.txt") })).status).toBe(204);
    expect((await dav("MOVE", "/Docs/copy.txt", { headers: to("/Docs/moved.txt") })).status).toBe(201);
    expect((await dav("GET", "/Docs/copy.txt")).status).toBe(404);
    expect((await dav("COPY", "/Docs", { headers: { ...to("/Shallow"), depth: "0" } })).status).toBe(201);
    const shallow = await dav("PROPFIND", "/Shallow", { headers: { depth: "1" } });
    expect(hrefs(await shallow.text())).toEqual(["/dav/Shallow/"]);
    expect((await dav("COPY", "/Docs", { headers: to("/Docs/inside") })).status).toBe(403);
    expect(
      (await dav("MOVE", "/Docs/moved.txt", { headers: { destination: "http://elsewhere.example/x" } }))
        .status,
    ).toBe(502);
    expect((await dav("DELETE", "/Docs/moved.txt")).status).toBe(204);
    expect((await dav("DELETE", "/Docs/moved.txt")).status).toBe(404);
  });

  it("locks: a locked resource takes writes only with its token", async () => {
    const lockBody =
      '<?xml version="1.0"?><D:lockinfo xmlns:D="DAV:"><D:lockscope><D:exclusive/></D:lockscope><D:locktype><D:write/></D:locktype><D:owner>me</D:owner></D:lockinfo>';
    const locked = await dav("LOCK", "/Docs/été.txt", {
      headers: { depth: "0", timeout: "Second-60" },
      body: lockBody,
    });
    expect(locked.status).toBe(200);
    const token = locked.headers.get("lock-token")!;
    expect(token).toMatch(/^<opaquelocktoken:/);
    expect((await dav("PUT", "/Docs/été.txt", { body: "sneaky" })).status).toBe(423);
    expect((await dav("DELETE", "/Docs/été.txt")).status).toBe(423);
    expect((await dav("LOCK", "/Docs/été.txt", { body: lockBody })).status).toBe(423);
    expect((await dav("PUT", "/Docs/été.txt", { body: "mine", headers: { if: `(${token})` } })).status).toBe(
      204,
    );
    expect(
      (await dav("PUT", "/Docs/été.txt", { body: "x", headers: { if: "(<opaquelocktoken:nope>)" } })).status,
    ).toBe(412);
    const discovered = await dav("PROPFIND", "/Docs/été.txt", {
      headers: { depth: "0" },
      body: '<D:propfind xmlns:D="DAV:"><D:prop><D:lockdiscovery/></D:prop></D:propfind>',
    });
    expect(await discovered.text()).toContain(token.slice(1, -1));
    expect((await dav("UNLOCK", "/Docs/été.txt", { headers: { "lock-token": token } })).status).toBe(204);
    expect((await dav("PUT", "/Docs/été.txt", { body: "free again" })).status).toBe(204);
    // A lock on an unmapped URL makes an empty resource.
    const fresh = await dav("LOCK", "/Docs/new.txt", { body: lockBody });
    expect(fresh.status).toBe(201);
    expect((await dav("GET", "/Docs/new.txt")).status).toBe(200);
  });

  it("obeys folder grants and personal folders", async () => {
    const kidAuth = basic("davkid", GOOD_PASSWORD);
    const secret = await mkdir(s, admin, "Secret");
    await s.api("PUT", "/api/v1/grants", { token: admin, body: { directory_id: secret.id, grants: [] } });
    await upload(s, admin, "plan.txt", "private", { parentId: secret.id });
    expect((await dav("GET", "/Secret/plan.txt", { auth: kidAuth })).status).toBe(404);
    expect((await dav("PUT", "/Secret/x.txt", { auth: kidAuth, body: "x" })).status).toBe(409);
    const top = hrefs(await (await dav("PROPFIND", "/", { auth: kidAuth, headers: { depth: "1" } })).text());
    expect(top).toContain("/dav/~davkid/");
    expect(top).not.toContain("/dav/Secret/");
    expect(top).not.toContain("/dav/~admin/");
    expect((await dav("PUT", "/~davkid/diary.txt", { auth: kidAuth, body: "dear diary" })).status).toBe(201);
    expect((await dav("GET", "/~davkid/diary.txt")).status).toBe(404);
  });

  it("answers 403 to writes into a watched folder", async () => {
    const r = await s.api("POST", "/api/v1/watched-folders", {
      token: admin,
      body: { name: "Drive", path: `${host}/drive` },
    });
    expect(r.status).toBe(201);
    await waitFor(
      () => dav("GET", "/Drive/readme.txt"),
      (res) => res.status === 200,
    );
    expect((await dav("PUT", "/Drive/new.txt", { body: "x" })).status).toBe(403);
    expect((await dav("DELETE", "/Drive/readme.txt")).status).toBe(403);
    expect((await dav("MKCOL", "/Drive/sub")).status).toBe(403);
  });

  it("lists a collection of more members than it reads at a time: each once, in full", async () => {
    for (let i = 0; i < 1234; i++) write(host, `many/f${String(i).padStart(4, "0")}.txt`, "x");
    const r = await s.api("POST", "/api/v1/watched-folders", {
      token: admin,
      body: { name: "Many", path: `${host}/many` },
    });
    expect(r.status).toBe(201);
    const want = Array.from({ length: 1234 }, (_, i) => `/dav/Many/f${String(i).padStart(4, "0")}.txt`);
    const listed = await waitFor(
      async () => {
        const res = await dav("PROPFIND", "/Many/", { headers: { depth: "1" } });
        return { status: res.status, hrefs: hrefs(await res.text()) };
      },
      (x) => x.hrefs.length === 1 + 1234,
    );
    expect(listed.status).toBe(207);
    expect(listed.hrefs[0]).toBe("/dav/Many/");
    expect(listed.hrefs.slice(1).sort()).toEqual(want);
    const page = await dav("GET", "/Many/");
    expect(page.headers.get("content-type")).toMatch(/^text\/html/);
    const links = [...(await page.text()).matchAll(/<li><a href="([^"]*)">/g)].map((m) => m[1]);
    expect(links.sort()).toEqual(want);
  });

  it("takes the files macOS Finder and Windows write, like any other", async () => {
    const finder = { "user-agent": "WebDAVFS/3.0.0 (03008000) Darwin/22.0.0" };
    expect(
      (await dav("PUT", "/Docs/._été.txt", { headers: finder, body: "\u0000\u0005\u0016\u0007" })).status,
    ).toBe(201);
    expect((await dav("PUT", "/Docs/.DS_Store", { headers: finder, body: "Bud1" })).status).toBe(201);
    const windows = { "user-agent": "Microsoft-WebDAV-MiniRedir/10.0.19045" };
    const w = await dav("PROPFIND", "/Docs", { headers: { ...windows, depth: "1" } });
    expect(w.status).toBe(207);
    expect(hrefs(await w.text())).toContain("/dav/Docs/.DS_Store");
  });

  it("keeps a file's dead properties when PUT replaces its content (RFC 4918 9.7.1)", async () => {
    // Windows sets its Win32 attributes by PROPPATCH and writes the file again later.
    expect((await dav("MKCOL", "/Keep")).status).toBe(201);
    expect((await dav("PUT", "/Keep/w.txt", { body: "v1" })).status).toBe(201);
    const set = `<D:propertyupdate xmlns:D="DAV:" xmlns:Z="urn:schemas-microsoft-com:"><D:set><D:prop>
      <Z:Win32FileAttributes>00000020</Z:Win32FileAttributes></D:prop></D:set></D:propertyupdate>`;
    expect((await dav("PROPPATCH", "/Keep/w.txt", { body: set })).status).toBe(207);
    expect((await dav("PUT", "/Keep/w.txt", { body: "v2" })).status).toBe(204);
    const read = await dav("PROPFIND", "/Keep/w.txt", {
      headers: { depth: "0" },
      body: '<D:propfind xmlns:D="DAV:"><D:prop><Z:Win32FileAttributes xmlns:Z="urn:schemas-microsoft-com:"/></D:prop></D:propfind>',
    });
    expect(await read.text()).toContain("00000020</Z:Win32FileAttributes>");
  });

  it("leaves the destination alone when a MOVE over it is refused", async () => {
    const ro = await createUser(s, admin, "davro");
    const roAuth = basic("davro", GOOD_PASSWORD);
    const shelf = await mkdir(s, admin, "Shelf");
    const grant = { subject_type: "user", subject_id: ro.userId, level: "read" };
    await s.api("PUT", "/api/v1/grants", { token: admin, body: { directory_id: shelf.id, grants: [grant] } });
    await upload(s, admin, "book.txt", "read only", { parentId: shelf.id });
    expect((await dav("PUT", "/~davro/mine.txt", { auth: roAuth, body: "my own" })).status).toBe(201);
    const move = await dav("MOVE", "/Shelf/book.txt", {
      auth: roAuth,
      headers: { destination: `${s.url}/dav/~davro/mine.txt` },
    });
    expect(move.status).toBe(403);
    expect(await (await dav("GET", "/~davro/mine.txt", { auth: roAuth })).text()).toBe("my own");
    expect(await (await dav("GET", "/Shelf/book.txt", { auth: roAuth })).text()).toBe("read only");
  });

  it("answers 502 to a Destination on another host, whatever its path", async () => {
    for (const destination of [
      "http://elsewhere.example/dav/Keep/far.txt",
      `${s.url.replace(/:\d+$/, ":1")}/dav/Keep/far.txt`,
    ]) {
      expect((await dav("COPY", "/Keep/w.txt", { headers: { destination } })).status).toBe(502);
      expect((await dav("MOVE", "/Keep/w.txt", { headers: { destination } })).status).toBe(502);
    }
    expect((await dav("GET", "/Keep/far.txt")).status).toBe(404);
    expect((await dav("GET", "/Keep/w.txt")).status).toBe(200);
    // A path alone names this server.
    expect(
      (await dav("COPY", "/Keep/w.txt", { headers: { destination: "/dav/Keep/near.txt" } })).status,
    ).toBe(201);
  });

  /** Sends `method` with a body of `total` bytes, as fast as the server takes it; resolves with the status and the bytes sent by then. */
  const flood = (method: string, path: string, total: number, headers: Record<string, string> = {}) =>
    new Promise<{ status: number; sent: number }>((resolve, reject) => {
      let sent = 0;
      let done = false;
      const req = request(`${s.url}/dav${path}`, {
        method,
        headers: { authorization: ADMIN, "content-type": "application/xml", ...headers },
      });
      req.on("response", (res) => {
        done = true;
        res.resume();
        resolve({ status: res.statusCode ?? 0, sent });
        req.destroy();
      });
      req.on("error", (err) => (done ? undefined : reject(err)));
      const chunk = Buffer.alloc(256 * 1024, 0x20);
      const pump = () => {
        while (!done && sent < total) {
          sent += chunk.length;
          if (!req.write(chunk)) return void req.once("drain", pump);
        }
        if (!done) req.end();
      };
      pump();
    });

  it("refuses an XML body past 1 MiB without reading (or holding) the rest", async () => {
    const big = 256 * 1024 * 1024;
    for (const method of ["PROPFIND", "PROPPATCH", "LOCK"]) {
      const r = await flood(method, "/Keep/w.txt", big);
      expect([method, r.status]).toEqual([method, 413]);
      expect(r.sent).toBeLessThan(64 * 1024 * 1024);
    }
    const declared = await flood("PROPFIND", "/Keep/", 2 * 1024 * 1024, {
      "content-length": String(2 * 1024 * 1024),
    });
    expect(declared.status).toBe(413);
    const mkcol = await flood("MKCOL", "/Keep/bodied", big);
    expect(mkcol.status).toBe(415);
    expect(mkcol.sent).toBeLessThan(64 * 1024 * 1024);
    expect((await dav("PROPFIND", "/Keep/", { headers: { depth: "0" } })).status).toBe(207);
  }, 60_000);

  it("answers 400 to a partial PUT (Content-Range) and leaves the file whole (RFC 9110 14.5)", async () => {
    expect((await dav("PUT", "/Keep/whole.txt", { body: "the whole of it" })).status).toBe(201);
    const partial = await dav("PUT", "/Keep/whole.txt", {
      headers: { "content-range": "bytes 4-8/15" },
      body: "WHOLE",
    });
    expect(partial.status).toBe(400);
    expect(await (await dav("GET", "/Keep/whole.txt")).text()).toBe("the whole of it");
  });

  it("renders a heavy listing a little at a time, as the client reads it", async () => {
    expect((await dav("MKCOL", "/Heavy")).status).toBe(201);
    for (let i = 0; i < 150; i++) await dav("PUT", `/Heavy/f${i}.txt`, { body: "x" });
    // 40,000 names asked for (900 KB): each member answers every one, ~1 MB a member.
    const names = Array.from({ length: 40_000 }, (_, i) => `<Z:p${i}/>`).join("");
    const before = process.memoryUsage().arrayBuffers;
    const heavy = await dav("PROPFIND", "/Heavy/", {
      headers: { depth: "1" },
      body: `<D:propfind xmlns:D="DAV:" xmlns:Z="urn:z"><D:prop>${names}</D:prop></D:propfind>`,
    });
    expect(heavy.status).toBe(207);
    // Not read yet: what the server has made so far waits in memory.
    let held = 0;
    for (let i = 0; i < 20; i++) {
      await new Promise((resolve) => setTimeout(resolve, 10));
      held = Math.max(held, process.memoryUsage().arrayBuffers - before);
    }
    let bytes = 0;
    for await (const chunk of heavy.body as unknown as AsyncIterable<Uint8Array>) bytes += chunk.length;
    expect(bytes).toBeGreaterThan(150 * 40_000 * 10);
    expect(held).toBeLessThan(32 * 1024 * 1024);
  }, 60_000);

  it("refuses a deep lock that would reach a folder its holder may not change", async () => {
    const mate = await createUser(s, admin, "davmate");
    const mateAuth = basic("davmate", GOOD_PASSWORD);
    const team = await mkdir(s, admin, "Team");
    const grant = { subject_type: "user", subject_id: mate.userId, level: "write" };
    await s.api("PUT", "/api/v1/grants", { token: admin, body: { directory_id: team.id, grants: [grant] } });
    const hidden = await mkdir(s, admin, "Private", team.id);
    await s.api("PUT", "/api/v1/grants", { token: admin, body: { directory_id: hidden.id, grants: [] } });
    const lockBody =
      '<D:lockinfo xmlns:D="DAV:"><D:lockscope><D:exclusive/></D:lockscope><D:locktype><D:write/></D:locktype></D:lockinfo>';
    const deep = await dav("LOCK", "/Team", {
      auth: mateAuth,
      headers: { depth: "infinity" },
      body: lockBody,
    });
    expect(deep.status).toBe(403);
    expect((await dav("PUT", "/Team/Private/plans.txt", { body: "admin's" })).status).toBe(201);
    // The folder alone can be locked.
    const shallow = await dav("LOCK", "/Team", { auth: mateAuth, headers: { depth: "0" }, body: lockBody });
    expect(shallow.status).toBe(200);
    const token = shallow.headers.get("lock-token")!;
    expect((await dav("UNLOCK", "/Team", { auth: mateAuth, headers: { "lock-token": token } })).status).toBe(
      204,
    );
  });

  it("honours If-Match and If-None-Match on writes: a stale client does not overwrite (RFC 9110 13.1)", async () => {
    expect(
      (await dav("PUT", "/Keep/cond.txt", { headers: { "if-none-match": "*" }, body: "v1" })).status,
    ).toBe(201);
    const etag = (await dav("HEAD", "/Keep/cond.txt")).headers.get("etag")!;
    const stale = '"0123456789abcdef0123456789abcdef"';
    expect(
      (await dav("PUT", "/Keep/cond.txt", { headers: { "if-match": stale }, body: "lost" })).status,
    ).toBe(412);
    expect(
      (await dav("PUT", "/Keep/cond.txt", { headers: { "if-none-match": "*" }, body: "lost" })).status,
    ).toBe(412);
    expect((await dav("DELETE", "/Keep/cond.txt", { headers: { "if-match": stale } })).status).toBe(412);
    expect((await dav("PUT", "/Keep/missing.txt", { headers: { "if-match": "*" }, body: "x" })).status).toBe(
      412,
    );
    expect(await (await dav("GET", "/Keep/cond.txt")).text()).toBe("v1");
    expect((await dav("PUT", "/Keep/cond.txt", { headers: { "if-match": etag }, body: "v2" })).status).toBe(
      204,
    );
    expect(await (await dav("GET", "/Keep/cond.txt")).text()).toBe("v2");
  });

  it("lets each holder of a shared lock write with its own token (RFC 4918 6.1)", async () => {
    const mateAuth = basic("davmate", GOOD_PASSWORD);
    expect((await dav("PUT", "/Team/shared.txt", { body: "v1" })).status).toBe(201);
    const shared =
      '<D:lockinfo xmlns:D="DAV:"><D:lockscope><D:shared/></D:lockscope><D:locktype><D:write/></D:locktype></D:lockinfo>';
    const mine = await dav("LOCK", "/Team/shared.txt", { headers: { depth: "0" }, body: shared });
    const theirs = await dav("LOCK", "/Team/shared.txt", {
      auth: mateAuth,
      headers: { depth: "0" },
      body: shared,
    });
    expect([mine.status, theirs.status]).toEqual([200, 200]);
    const [myToken, theirToken] = [mine.headers.get("lock-token")!, theirs.headers.get("lock-token")!];
    expect((await dav("PUT", "/Team/shared.txt", { body: "no token" })).status).toBe(423);
    expect(
      (await dav("PUT", "/Team/shared.txt", { headers: { if: `(${myToken})` }, body: "v2" })).status,
    ).toBe(204);
    const put = await dav("PUT", "/Team/shared.txt", {
      auth: mateAuth,
      headers: { if: `(${theirToken})` },
      body: "v3",
    });
    expect(put.status).toBe(204);
    // A token is its holder's own: someone else's does not do.
    expect(
      (await dav("PUT", "/Team/shared.txt", { headers: { if: `(${theirToken})` }, body: "v4" })).status,
    ).toBe(423);
    await dav("UNLOCK", "/Team/shared.txt", { headers: { "lock-token": myToken } });
    await dav("UNLOCK", "/Team/shared.txt", { auth: mateAuth, headers: { "lock-token": theirToken } });
  });

  it("lists one ~name at the top: a shared folder of that name does not make a second", async () => {
    // The admin names a shared folder after davkid's personal folder: davkid's "/~davkid/" is still theirs.
    expect((await dav("MKCOL", "/~davkid")).status).toBe(201);
    const kidAuth = basic("davkid", GOOD_PASSWORD);
    const top = hrefs(await (await dav("PROPFIND", "/", { auth: kidAuth, headers: { depth: "1" } })).text());
    expect(top.filter((h) => h === "/dav/~davkid/")).toHaveLength(1);
    expect(hrefs(await (await dav("PROPFIND", "/", { headers: { depth: "1" } })).text())).toContain(
      "/dav/~davkid/",
    );
  });
});

/** Locks on the top of the tree, on a server of its own: no other test's locks in the way. */
describe("WebDAV locks on the top", () => {
  let s: TestServer;
  const basic = (user: string, pass: string) => `Basic ${Buffer.from(`${user}:${pass}`).toString("base64")}`;
  const dav = (method: string, path: string, auth: string, opts: { depth?: string; body?: string } = {}) =>
    fetch(`${s.url}/dav${path}`, {
      method,
      headers: { authorization: auth, ...(opts.depth ? { depth: opts.depth } : {}) },
      ...(opts.body !== undefined ? { body: opts.body } : {}),
    });
  const lockBody =
    '<D:lockinfo xmlns:D="DAV:"><D:lockscope><D:exclusive/></D:lockscope><D:locktype><D:write/></D:locktype></D:lockinfo>';

  beforeAll(async () => {
    s = await startServer();
    await createUser(s, await s.login(), "davtop");
  });
  afterAll(() => s.close());

  it("refuses a lock on the whole tree: one user cannot stop everyone's writes", async () => {
    const admin = basic("admin", ADMIN_PASSWORD);
    const user = basic("davtop", GOOD_PASSWORD);
    expect((await dav("LOCK", "/", user, { depth: "infinity", body: lockBody })).status).toBe(403);
    expect((await dav("LOCK", "/", admin, { depth: "infinity", body: lockBody })).status).toBe(403);
    // Nobody's writes are held up, in a personal folder or in the shared tree.
    expect((await dav("PUT", "/~admin/after.txt", admin, { body: "mine" })).status).toBe(201);
    expect((await dav("PUT", "/shared.txt", admin, { body: "ours" })).status).toBe(201);
  });
});

/** The per-address limit on anonymous traffic, on a server of its own with a small one. */
describe("WebDAV under the per-address limit", () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startServer({ rate_limit: { global_per_minute: 3, login_per_minute: 3 } });
  });
  afterAll(() => s.close());

  it("still serves valid Basic credentials once anonymous requests spent the address's budget", async () => {
    // Every WebDAV client starts with OPTIONS, or a first request, without credentials.
    for (let i = 0; i < 4; i++) await fetch(`${s.url}/dav/`, { method: "OPTIONS" });
    expect((await fetch(`${s.url}/dav/`, { method: "OPTIONS" })).status).toBe(429);
    const as = (pass: string) => ({
      method: "PROPFIND",
      headers: { depth: "0", authorization: `Basic ${Buffer.from(`admin:${pass}`).toString("base64")}` },
    });
    expect((await fetch(`${s.url}/dav/`, as(ADMIN_PASSWORD))).status).toBe(207);
    // A wrong password gains nothing: 401, then the sign-in limit.
    const wrong = await Promise.all([1, 2, 3, 4, 5].map(() => fetch(`${s.url}/dav/`, as("wrong-password"))));
    expect(wrong.map((r) => r.status)).toContain(429);
    expect(wrong.map((r) => r.status)).not.toContain(207);
  });
});

/** The sign-in limit against a burst of guesses, on a server of its own. */
describe("WebDAV under the sign-in limit", () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startServer({
      rate_limit: { login_per_minute: 5 },
      auth: { password_hash_memory_kib: 19_456, password_hash_iterations: 2 },
    });
  });
  afterAll(() => s.close());

  it("checks no more passwords than the sign-in limit, even sent all at once", async () => {
    const right = { authorization: `Basic ${Buffer.from(`admin:${ADMIN_PASSWORD}`).toString("base64")}` };
    const propfind = () => fetch(`${s.url}/dav/`, { method: "PROPFIND", headers: { ...right, depth: "0" } });
    // A client opening many connections at once is checked once.
    const opening = await Promise.all(Array.from({ length: 12 }, propfind));
    expect(opening.map((r) => r.status)).toEqual(Array(12).fill(207));
    const guesses = await Promise.all(
      Array.from({ length: 30 }, (_, i) =>
        fetch(`${s.url}/dav/`, {
          method: "PROPFIND",
          headers: { authorization: `Basic ${Buffer.from(`admin:guess-${i}`).toString("base64")}` },
        }),
      ),
    );
    // Each 401 is a password checked; login_per_minute is 5, one spent above.
    expect(guesses.filter((r) => r.status === 401).length).toBeLessThanOrEqual(4);
    expect(guesses.filter((r) => r.status === 429).length).toBeGreaterThan(0);
    // A password proven a moment ago is not checked again: it still works.
    expect((await propfind()).status).toBe(207);
  });
});
