import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { upload } from "../helpers/files.ts";
import { startServer, type TestServer } from "../helpers/server.ts";

/**
 * One JSON line per request, from the hot paths and the router alike
 * (request id, method, route, path, status, duration, user), with no
 * secret in it: not the bearer token, not a share link's token. Other
 * lines keep pino's redaction.
 */
describe("request log lines", () => {
  let s: TestServer;
  let token: string;
  let fileId: string;
  const lines: Record<string, unknown>[] = [];
  const raw: string[] = [];

  beforeAll(async () => {
    s = await startServer(
      { log: { level: "info" } },
      {
        logTo: (line) => {
          raw.push(line);
          lines.push(JSON.parse(line));
        },
      },
    );
    token = await s.login();
    fileId = (await upload(s, token, "log.txt", "logged")).body.id;
  });
  afterAll(() => s?.close());

  const requestLine = (requestId: string) => lines.find((l) => l.msg === "request" && l.req_id === requestId);

  it("logs a hot-path request and a routed one alike, without the credential", async () => {
    const hot = await fetch(`${s.url}/api/v1/files/${fileId}`, {
      headers: { authorization: `Bearer ${token}` },
    });
    expect(hot.status).toBe(200);
    const routed = await fetch(`${s.url}/api/v1/files/${fileId}`, {
      headers: { authorization: `Bearer ${token}`, origin: "http://elsewhere.example" },
    });
    expect(routed.status).toBe(200);
    for (const res of [hot, routed]) {
      const line = requestLine(res.headers.get("x-request-id") ?? "");
      expect(line).toMatchObject({
        service: "attic",
        method: "GET",
        route: "/api/v1/files/:id",
        path: `/api/v1/files/${fileId}`,
        status: 200,
        level: 30,
      });
      expect(typeof line?.ms).toBe("number");
      expect(typeof line?.user).toBe("string");
    }
    expect(raw.some((l) => l.includes(token.slice(-32)))).toBe(false);
  });

  it("masks a share link's token in the logged path", async () => {
    const share = await s.api("POST", "/api/v1/shares", { token, body: { file_id: fileId } });
    expect(share.status).toBe(201);
    const shareToken = share.body.token as string;
    const res = await fetch(`${s.url}/s/${shareToken}/download`);
    expect(await res.text()).toBe("logged");
    const line = requestLine(res.headers.get("x-request-id") ?? "");
    expect(line?.path).toBe("/s/[redacted]/download");
    expect(raw.some((l) => l.includes(shareToken))).toBe(false);
  });

  it("masks the stream token of an HLS playlist or segment path", async () => {
    const st = (await s.api("POST", `/api/v1/files/${fileId}/stream-token`, { token })).body.token as string;
    for (const tail of ["index.m3u8", "seg-0.ts"]) {
      // Not a video: the answer is a refusal, but the request is logged all the same.
      const res = await fetch(`${s.url}/api/v1/files/${fileId}/hls/t/${st}/${tail}`);
      await res.arrayBuffer();
      const line = requestLine(res.headers.get("x-request-id") ?? "");
      expect(line?.path).toBe(`/api/v1/files/${fileId}/hls/t/[redacted]/${tail}`);
    }
    expect(raw.some((l) => l.includes(st.slice(-32)))).toBe(false);
  });
});
