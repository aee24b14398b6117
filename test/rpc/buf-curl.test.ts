import { execFile } from "node:child_process";
import { createHash, randomBytes } from "node:crypto";
import { resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer, type TestServer } from "../helpers/server.ts";

const root = resolve(import.meta.dirname, "../..");
const buf = resolve(root, "node_modules/.bin/buf");

/** Runs `buf curl` over cleartext HTTP/2 with prior knowledge and the gRPC protocol, as a user would. */
function bufCurl(
  url: string,
  token: string,
  procedure: string,
  stdin: string,
  schema: string[] = ["--schema", "."],
): Promise<string> {
  const args = [
    "curl",
    ...schema,
    "--http2-prior-knowledge",
    "--protocol",
    "grpc",
    "-H",
    `Authorization: Bearer ${token}`,
    "-d",
    "@-",
    ...(procedure ? [`${url}/${procedure}`] : [url]),
  ];
  return new Promise((ok, fail) => {
    const child = execFile(
      buf,
      args,
      { cwd: root, env: { ...process.env, BUF_CACHE_DIR: resolve(root, ".buf-cache") }, maxBuffer: 64 << 20 },
      (err, stdout, stderr) => (err ? fail(new Error(`${err.message}\n${stderr}`)) : ok(stdout)),
    );
    child.stdin?.end(stdin);
  });
}

describe("buf curl --http2-prior-knowledge --protocol grpc", () => {
  let s: TestServer;
  let token: string;
  beforeAll(async () => {
    s = await startServer();
    token = await s.login();
  });
  afterAll(() => s.close());

  it("uploads by client streaming and downloads back byte-exact", async () => {
    const content = randomBytes(200 * 1024 + 7);
    const hash = createHash("sha256").update(content).digest("hex");
    const messages = [
      JSON.stringify({ metadata: { name: "curl.bin", expected_sha256: hash } }),
      JSON.stringify({ chunk: content.subarray(0, 100_000).toString("base64") }),
      JSON.stringify({ chunk: content.subarray(100_000).toString("base64") }),
    ].join("\n");
    const uploaded = JSON.parse(await bufCurl(s.url, token, "attic.v1.FileService/UploadFile", messages));
    expect(uploaded.file).toMatchObject({ name: "curl.bin", hash, size: String(content.length) });

    const out = await bufCurl(
      s.url,
      token,
      "attic.v1.FileService/DownloadFile",
      JSON.stringify({ id: uploaded.file.id }),
    );
    expect(out).toContain('"metadata"');
    const chunks = [...out.matchAll(/"chunk":\s*"([A-Za-z0-9+/=]*)"/g)].map((m) =>
      Buffer.from(m[1]!, "base64"),
    );
    expect(chunks.length).toBeGreaterThan(1);
    expect(Buffer.compare(Buffer.concat(chunks), content)).toBe(0);
  });

  it("needs no local .proto files: server reflection lists and describes every service", async () => {
    const listed = await bufCurl(s.url, token, "", "", ["--list-services"]);
    expect(listed.trim().split("\n")).toEqual(
      expect.arrayContaining([
        "attic.v1.FileService",
        "attic.v1.SettingsService",
        "attic.v1.WatchedFolderService",
      ]),
    );
    const answer = await bufCurl(
      s.url,
      token,
      "attic.v1.SettingsService/UpdateUserSettings",
      JSON.stringify({ settings: { via: "reflection" } }),
      [],
    );
    expect(JSON.parse(answer)).toEqual({ settings: { via: "reflection" } });
  });
});
