import { createHash, randomBytes } from "node:crypto";
import { request } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createUser, type Session } from "../helpers/accounts.ts";
import { mkdir } from "../helpers/files.ts";
import { startServer, type TestServer } from "../helpers/server.ts";

const b64 = (s: string) => Buffer.from(s).toString("base64");

/** Resumable uploads, tus 1.0.0 (issue 16): create, upload, a PATCH cut mid-way, resume, finish into the tree. */
describe("tus uploads", () => {
  let s: TestServer;
  let admin: string;
  let other: Session;
  let inbox: { id: string };
  const tus = (
    token: string,
    method: string,
    path: string,
    headers: Record<string, string> = {},
    body?: Uint8Array,
  ) =>
    fetch(s.url + path, {
      method,
      headers: { authorization: `Bearer ${token}`, "tus-resumable": "1.0.0", ...headers },
      ...(body ? { body: body as unknown as RequestInit["body"] } : {}),
    });

  beforeAll(async () => {
    s = await startServer();
    admin = await s.login();
    other = await createUser(s, admin, "tusother");
    inbox = await mkdir(s, admin, "Inbox");
  });
  afterAll(() => s.close());

  /** A PATCH whose connection drops after `sendBytes` of `total` bytes were written. */
  const cutPatch = (location: string, chunk: Buffer, sendBytes: number) =>
    new Promise<void>((resolve) => {
      const url = new URL(location, s.url);
      const req = request(url, {
        method: "PATCH",
        headers: {
          authorization: `Bearer ${admin}`,
          "tus-resumable": "1.0.0",
          "upload-offset": "0",
          "content-type": "application/offset+octet-stream",
          "content-length": String(chunk.length),
        },
      });
      req.on("error", () => resolve());
      req.on("response", () => resolve());
      req.write(chunk.subarray(0, sendBytes), () => setTimeout(() => req.destroy(), 200));
    });

  it("resumes a PATCH cut mid-way from the offset HEAD gives, and lands byte-exact in the folder", async () => {
    const data = randomBytes(3 * 1024 * 1024 + 5);
    const sha = createHash("sha256").update(data).digest("hex");
    const created = await tus(admin, "POST", "/api/v1/uploads", {
      "upload-length": String(data.length),
      "upload-metadata": `filename ${b64("video.bin")},parent_id ${b64(inbox.id)},sha256 ${b64(sha)}`,
    });
    expect(created.status).toBe(201);
    const location = created.headers.get("location")!;
    expect(location).toContain("/api/v1/uploads/");
    await cutPatch(location, data, 1024 * 1024 + 17);
    const head = await tus(admin, "HEAD", new URL(location, s.url).pathname);
    expect(head.status).toBe(200);
    const offset = Number(head.headers.get("upload-offset"));
    expect(offset).toBeGreaterThan(0);
    expect(offset).toBeLessThanOrEqual(1024 * 1024 + 17);
    // Not in the tree while unfinished.
    const before = await s.api("GET", `/api/v1/directories/${inbox.id}/children`, { token: admin });
    expect(before.body.total).toBe(0);
    // Another user can neither see nor end it.
    expect((await tus(other.token, "HEAD", new URL(location, s.url).pathname)).status).toBe(404);
    expect((await tus(other.token, "DELETE", new URL(location, s.url).pathname)).status).toBe(404);
    const rest = await tus(
      admin,
      "PATCH",
      new URL(location, s.url).pathname,
      { "upload-offset": String(offset), "content-type": "application/offset+octet-stream" },
      data.subarray(offset),
    );
    expect(rest.status).toBe(204);
    const fileId = rest.headers.get("upload-file-id");
    expect(fileId).toBeTruthy();
    const got = await fetch(`${s.url}/api/v1/files/${fileId}/download`, {
      headers: { authorization: `Bearer ${admin}` },
    });
    expect(Buffer.from(await got.arrayBuffer()).equals(data)).toBe(true);
    const meta = await s.api("GET", `/api/v1/files/${fileId}`, { token: admin });
    expect(meta.body).toMatchObject({ name: "video.bin", parent_id: inbox.id, hash: sha });
  });

  it("creates with upload in one request, refuses bad destinations at creation, and terminates", async () => {
    const small = Buffer.from("one go");
    const once = await tus(
      admin,
      "POST",
      "/api/v1/uploads",
      {
        "upload-length": String(small.length),
        "upload-metadata": `filename ${b64("once.txt")}`,
        "content-type": "application/offset+octet-stream",
      },
      small,
    );
    expect(once.status).toBe(201);
    expect(once.headers.get("upload-file-id")).toBeTruthy();
    const clash = await tus(admin, "POST", "/api/v1/uploads", {
      "upload-length": "3",
      "upload-metadata": `filename ${b64("once.txt")}`,
    });
    expect(clash.status).toBe(409);
    const noName = await tus(admin, "POST", "/api/v1/uploads", { "upload-length": "3" });
    expect(noName.status).toBe(400);
    expect(
      (
        await fetch(`${s.url}/api/v1/uploads`, {
          method: "POST",
          headers: { "tus-resumable": "1.0.0", "upload-length": "3" },
        })
      ).status,
    ).toBe(401);
    const doomed = await tus(admin, "POST", "/api/v1/uploads", {
      "upload-length": "10",
      "upload-metadata": `filename ${b64("doomed.txt")}`,
    });
    const path = new URL(doomed.headers.get("location")!, s.url).pathname;
    expect((await tus(admin, "DELETE", path)).status).toBe(204);
    expect((await tus(admin, "HEAD", path)).status).toBe(404);
  });

  it("answers every refusal with the API's JSON error body, the library's own refusals included", async () => {
    const created = await tus(admin, "POST", "/api/v1/uploads", {
      "upload-length": "5",
      "upload-metadata": `filename ${b64("errors.txt")}`,
    });
    const path = new URL(created.headers.get("location")!, s.url).pathname;
    const octets = { "content-type": "application/offset+octet-stream" };
    const cases: [string, () => Promise<Response>, number, string][] = [
      [
        "wrong offset",
        () => tus(admin, "PATCH", path, { ...octets, "upload-offset": "3" }, Buffer.from("ab")),
        409,
        "ERR_CONFLICT",
      ],
      [
        "past its length",
        () => tus(admin, "PATCH", path, { ...octets, "upload-offset": "0" }, Buffer.from("abcdefgh")),
        413,
        "ERR_PAYLOAD_TOO_LARGE",
      ],
      [
        "another's upload",
        () => tus(other.token, "PATCH", path, { ...octets, "upload-offset": "0" }, Buffer.from("ab")),
        404,
        "ERR_NOT_FOUND",
      ],
      ["no such upload", () => tus(admin, "DELETE", `${path}x`), 404, "ERR_NOT_FOUND"],
      [
        "no length",
        () => tus(admin, "POST", "/api/v1/uploads", { "upload-metadata": `filename ${b64("x")}` }),
        400,
        "ERR_VALIDATION",
      ],
      [
        "bad metadata",
        () =>
          tus(admin, "POST", "/api/v1/uploads", {
            "upload-length": "1",
            "upload-metadata": "filename !!!,,,",
          }),
        400,
        "ERR_VALIDATION",
      ],
      ["no offset", () => tus(admin, "PATCH", path, octets, Buffer.from("ab")), 400, "ERR_VALIDATION"],
      [
        "no tus version",
        () => fetch(s.url + path, { method: "DELETE", headers: { authorization: `Bearer ${admin}` } }),
        412,
        "ERR_VALIDATION",
      ],
    ];
    for (const [what, send, status, code] of cases) {
      const r = await send();
      const text = await r.text();
      expect([what, r.status], text).toEqual([what, status]);
      expect([what, r.headers.get("content-type")]).toEqual([what, "application/json"]);
      const body = JSON.parse(text) as { error: { code: string; message: string } };
      expect([what, body.error.code]).toEqual([what, code]);
      expect(body.error.message.length).toBeGreaterThan(0);
    }
  });
});

/** A browser app on another origin (server.cors_origins) uploads with tus-js-client; other origins get no CORS grant. */
describe("tus uploads across origins", () => {
  const app = "http://app.example";
  let s: TestServer;
  let admin: string;
  beforeAll(async () => {
    s = await startServer({ server: { cors_origins: [app] } });
    admin = await s.login();
  });
  afterAll(() => s.close());

  const create = (origin: string) =>
    fetch(`${s.url}/api/v1/uploads`, {
      method: "POST",
      headers: {
        origin,
        authorization: `Bearer ${admin}`,
        "tus-resumable": "1.0.0",
        "upload-length": "3",
        "upload-metadata": `filename ${b64(`from-${origin.length}.txt`)}`,
      },
    });
  const list = (h: Headers, name: string) =>
    (h.get(name) ?? "")
      .toLowerCase()
      .split(",")
      .map((x) => x.trim());

  it("lets a configured origin send the tus headers and read Location and Upload-Offset", async () => {
    const preflight = await fetch(`${s.url}/api/v1/uploads`, {
      method: "OPTIONS",
      headers: {
        origin: app,
        "access-control-request-method": "PATCH",
        "access-control-request-headers":
          "authorization,content-type,tus-resumable,upload-length,upload-metadata,upload-offset",
      },
    });
    expect(preflight.headers.get("access-control-allow-origin")).toBe(app);
    const allowed = list(preflight.headers, "access-control-allow-headers");
    for (const h of ["tus-resumable", "upload-length", "upload-metadata", "upload-offset", "authorization"])
      expect(allowed).toContain(h);
    const created = await create(app);
    expect(created.status).toBe(201);
    expect(created.headers.get("access-control-allow-origin")).toBe(app);
    const exposed = list(created.headers, "access-control-expose-headers");
    for (const h of ["location", "upload-offset", "upload-length", "tus-resumable", "upload-file-id"])
      expect(exposed).toContain(h);
  });

  it("grants no other origin, where the library alone said '*'", async () => {
    const created = await create("http://evil.example");
    expect(created.status).toBe(201);
    expect(created.headers.get("access-control-allow-origin")).not.toBe("*");
    expect(created.headers.get("access-control-allow-origin")).not.toBe("http://evil.example");
  });
});
