import { createHash } from "node:crypto";
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { getBytes, mkdir, upload } from "../helpers/files.ts";
import { startServer, type TestServer } from "../helpers/server.ts";

const sha = (b: string | Uint8Array) => createHash("sha256").update(b).digest("hex");

/** Every file under a directory, recursively (relative names). */
function walk(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => join(e.parentPath, e.name));
}

describe("files: upload, get, list, download", () => {
  let s: TestServer;
  let token: string;
  beforeAll(async () => {
    s = await startServer();
    token = await s.login();
  });
  afterAll(() => s.close());

  it("uploads a file and answers 201 with the File record", async () => {
    const r = await upload(s, token, "hello.txt", "hello world\n");
    expect(r.status, r.text).toBe(201);
    expect(r.body).toMatchObject({
      name: "hello.txt",
      path: "/hello.txt",
      type: "file",
      size: 12,
      mime_type: "text/plain",
      hash: sha("hello world\n"),
      permissions: "",
      tags: [],
      is_deleted: false,
    });
    expect(r.body.parent_id).toBeUndefined();
    expect(r.body.deleted_at).toBeUndefined();
    for (const k of ["id", "created_at", "updated_at", "accessed_at"])
      expect(typeof r.body[k]).toBe("string");
    const got = await s.api("GET", `/api/v1/files/${r.body.id}`, { token });
    expect(got.status).toBe(200);
    expect(got.body).toEqual(r.body);
  });
});
