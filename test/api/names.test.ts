import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { register } from "../helpers/accounts.ts";
import { mkdir, upload } from "../helpers/files.ts";
import { startServer, type TestServer } from "../helpers/server.ts";

/** A multipart body written by hand: FormData would clean the filename before it is sent. */
async function rawUpload(s: TestServer, token: string, filename: string) {
  const boundary = "----atticnames";
  const body =
    `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${filename}"\r\n` +
    `Content-Type: text/plain\r\n\r\nhello\r\n--${boundary}--\r\n`;
  const r = await fetch(`${s.url}/api/v1/files`, {
    method: "POST",
    headers: {
      authorization: `Bearer ${token}`,
      "content-type": `multipart/form-data; boundary=${boundary}`,
    },
    body,
  });
  return { status: r.status, body: (await r.json()) as { error?: { code: string } } };
}

describe("names", () => {
  let s: TestServer;
  let token: string;

  beforeAll(async () => {
    s = await startServer({ auth: { registration_enabled: true } });
    token = await s.login();
  });
  afterAll(() => s.close());

  const listed = async () =>
    ((await s.api("GET", "/api/v1/files?limit=500", { token })).body.files as { name: string }[]).map(
      (f) => f.name,
    );

  it("refuses a multipart filename with a path in it, storing nothing", async () => {
    for (const name of ["a/b.txt", "..\\\\evil.txt", "../../etc/passwd", "dir\\\\file.txt", "x/../y.txt"]) {
      const r = await rawUpload(s, token, name);
      expect([name, r.status, r.body.error?.code]).toEqual([name, 400, "ERR_VALIDATION"]);
    }
    const names = await listed();
    for (const n of ["b.txt", "evil.txt", "passwd", "file.txt", "y.txt"]) expect(names).not.toContain(n);
    expect((await rawUpload(s, token, "plain.txt")).status).toBe(201);
  });

  it("refuses bidi controls, zero-width characters, the BOM and whitespace-only names", async () => {
    const bad = [
      "invoice\u202Efdp.exe",
      "a\u202Ab",
      "a\u2066b\u2069",
      "zero\u200Bwidth",
      "join\u200Der",
      "word\u2060joiner",
      "\uFEFFbom.txt",
      "   ",
      "\u00A0\u2003",
    ];
    for (const name of bad) {
      const up = await upload(s, token, name, "x");
      expect([JSON.stringify(name), up.status]).toEqual([JSON.stringify(name), 400]);
      const dir = await s.api("POST", "/api/v1/directories", { token, body: { name } });
      expect([JSON.stringify(name), dir.status]).toEqual([JSON.stringify(name), 400]);
    }
    const ok = await mkdir(s, token, "Ordinary");
    const rename = await s.api("PATCH", `/api/v1/files/${ok.id}`, { token, body: { name: "a\u202Eb" } });
    expect(rename.status).toBe(400);
    const group = await s.api("POST", "/api/v1/groups", { token, body: { name: "kids\u200B" } });
    expect(group.status).toBe(400);
  });

  it("gives no two organizations the same name", async () => {
    await register(s, "first-family", { organization_name: "The Smiths" });
    for (const organization_name of ["The Smiths", "the smiths", "THE SMITHS"]) {
      const r = await s.api("POST", "/api/v1/auth/register", {
        body: {
          username: `smith${organization_name.length}${organization_name.charCodeAt(1)}`,
          email: `s${organization_name.charCodeAt(1)}@example.com`,
          password: "correct-Horse-battery-9",
          organization_name,
        },
      });
      expect([organization_name, r.status, r.body.error?.code]).toEqual([
        organization_name,
        409,
        "ERR_CONFLICT",
      ]);
    }
    // A personal organization named after a user whose name is taken by an organization gets a suffix.
    await register(s, "org-maker", { organization_name: "carol" });
    const carol = await register(s, "carol");
    const org = await s.api("GET", `/api/v1/organizations/${carol.orgId}`, { token: carol.token });
    expect(org.body.name).toMatch(/^carol-[a-z0-9]{1,4}$/);
    // The instance admin cannot rename Default onto a taken name either.
    const mine = await s.api("GET", "/api/v1/organizations", { token });
    const rename = await s.api("PUT", `/api/v1/organizations/${mine.body.organizations[0].id}`, {
      token,
      body: { name: "THE smiths" },
    });
    expect(rename.status).toBe(409);
    const bidi = await s.api("POST", "/api/v1/organizations", { token, body: { name: "Evil\u202Eorg" } });
    expect(bidi.status).toBe(400);
  });
});
