import { randomBytes } from "node:crypto";
import { create, toBinary } from "@bufbuild/protobuf";
import { ConnectError, createClient, type Transport } from "@connectrpc/connect";
import {
  createConnectTransport,
  createGrpcTransport,
  createGrpcWebTransport,
} from "@connectrpc/connect-node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DownloadFileRequestSchema, FileService } from "../../src/gen/attic/v1/file_pb.ts";
import { createUser } from "../helpers/accounts.ts";
import { mkdir, upload } from "../helpers/files.ts";
import { startServer, type TestServer } from "../helpers/server.ts";

/**
 * DownloadFile over the Connect, gRPC and gRPC-Web protocols (binary) is
 * answered by src/rpc/download-hot-path.ts, which writes the frames itself;
 * a request with an Origin header goes through the Connect router. Both
 * must put the same bytes on the wire: the same messages, the same end of
 * stream, the same error codes and messages.
 */
function envelope(id: string): Uint8Array {
  const msg = toBinary(DownloadFileRequestSchema, create(DownloadFileRequestSchema, { id }));
  const out = Buffer.alloc(5 + msg.length);
  out.writeUInt32BE(msg.length, 1);
  out.set(msg, 5);
  return out;
}

async function call(s: TestServer, body: Uint8Array, headers: Record<string, string>) {
  const res = await fetch(`${s.url}/attic.v1.FileService/DownloadFile`, {
    method: "POST",
    headers: { "content-type": "application/connect+proto", ...headers },
    body,
  });
  return {
    status: res.status,
    type: res.headers.get("content-type"),
    bytes: Buffer.from(await res.arrayBuffer()),
  };
}

/** The same call through the hot path and through the router. */
async function both(s: TestServer, body: Uint8Array, headers: Record<string, string>) {
  const hot = await call(s, body, headers);
  const routed = await call(s, body, { ...headers, origin: "http://elsewhere.example" });
  return { hot, routed };
}

/** The frames of a Connect stream: [flags, payload]. */
function frames(bytes: Buffer): [number, Buffer][] {
  const out: [number, Buffer][] = [];
  for (let at = 0; at < bytes.length; ) {
    const n = bytes.readUInt32BE(at + 1);
    out.push([bytes[at] as number, bytes.subarray(at + 5, at + 5 + n)]);
    at += 5 + n;
  }
  return out;
}

describe("RPC DownloadFile hot path", () => {
  let s: TestServer;
  let token: string;
  let other: string;
  let bigId: string;
  let emptyId: string;
  let dirId: string;
  const big = randomBytes(700_001);

  beforeAll(async () => {
    s = await startServer();
    token = await s.login();
    other = (await createUser(s, token, "rita")).token;
    dirId = (await mkdir(s, token, "Private")).id;
    bigId = (await upload(s, token, "big.bin", big, { parentId: dirId })).body.id;
    emptyId = (await upload(s, token, "empty.txt", "")).body.id;
    // Rita may not read Private.
    const grant = await s.api("PUT", "/api/v1/grants", { token, body: { directory_id: dirId, grants: [] } });
    expect([200, 204]).toContain(grant.status);
  });
  afterAll(() => s?.close());

  const auth = () => ({ authorization: `Bearer ${token}` });

  it("sends the same bytes as the router for a file of many chunks", async () => {
    const { hot, routed } = await both(s, envelope(bigId), auth());
    expect(hot.status).toBe(200);
    expect(hot.type).toBe("application/connect+proto");
    expect(hot.bytes.equals(routed.bytes)).toBe(true);
    const f = frames(hot.bytes);
    expect(f.at(-1)?.[0]).toBe(2);
    expect(f.length).toBe(1 + Math.ceil(big.length / 65536) + 1);
  });

  it("sends the same bytes for an empty file", async () => {
    const { hot, routed } = await both(s, envelope(emptyId), auth());
    expect(hot.bytes.equals(routed.bytes)).toBe(true);
  });

  for (const [name, body, headers] of [
    ["a missing file", () => envelope("01900000-0000-7000-8000-000000000000"), () => auth()],
    ["a malformed id", () => envelope("nope"), () => auth()],
    ["no id", () => envelope(""), () => auth()],
    ["a directory", () => envelope(dirId), () => auth()],
    ["a folder the caller may not read", () => envelope(bigId), () => ({ authorization: `Bearer ${other}` })],
    ["a bad token", () => envelope(bigId), () => ({ authorization: "Bearer not.a.token" })],
    ["an undecodable message", () => Buffer.from([0, 0, 0, 0, 3, 0xff, 0xff, 0xff]), () => auth()],
  ] as const) {
    it(`answers ${name} as the router does`, async () => {
      const { hot, routed } = await both(s, body(), headers());
      expect(hot.status).toBe(routed.status);
      const end = (b: Buffer) => JSON.parse(frames(b).at(-1)?.[1].toString() ?? "{}");
      const h = end(hot.bytes);
      const r = end(routed.bytes);
      expect(h.error?.code).toBeDefined();
      if (name === "an undecodable message") {
        // The router calls a garbled message its own failure (internal); the hot path, the client's.
        expect([h.error.code, r.error.code]).toEqual(["invalid_argument", "internal"]);
        expect(h.error.message).toBe(r.error.message);
        return;
      }
      // The request id differs per call; everything else is the same.
      const noId = (x: { metadata?: Record<string, unknown> }) => ({
        ...x,
        metadata: { ...x.metadata, "x-request-id": x.metadata?.["x-request-id"] ? "id" : undefined },
      });
      expect(noId(h)).toEqual(noId(r));
    });
  }

  /** Every message of a download (or its error) through `transport`, by the hot path or (with an Origin) the router. */
  async function collect(transport: Transport, id: string, headers: Record<string, string>) {
    const client = createClient(FileService, transport);
    const messages: unknown[] = [];
    try {
      for await (const m of client.downloadFile({ id }, { headers })) messages.push(m);
      return { messages };
    } catch (err) {
      const e = ConnectError.from(err);
      const metadata = Object.fromEntries(
        // Per call: the request id, the remaining budget and its reset, and the protocol's own fields.
        [...e.metadata].filter(
          ([k]) =>
            !["x-request-id", "x-ratelimit-remaining", "x-ratelimit-reset", "content-type", "date"].includes(
              k,
            ) && !k.startsWith("grpc-"),
        ),
      );
      return {
        messages,
        code: e.code,
        message: e.rawMessage,
        requestId: !!e.metadata.get("x-request-id"),
        metadata,
      };
    }
  }

  for (const [protocol, transport] of [
    ["gRPC over HTTP/2", (url: string) => createGrpcTransport({ baseUrl: url })],
    ["gRPC-Web over HTTP/1.1", (url: string) => createGrpcWebTransport({ baseUrl: url, httpVersion: "1.1" })],
    ["gRPC-Web over HTTP/2", (url: string) => createGrpcWebTransport({ baseUrl: url, httpVersion: "2" })],
  ] as const) {
    it(`answers ${protocol} as the router does: messages, ends and errors`, async () => {
      const t = transport(s.url);
      const routedHeaders = (h: Record<string, string>) => ({ ...h, origin: "http://elsewhere.example" });
      const ok = await collect(t, bigId, auth());
      expect(ok.code).toBeUndefined();
      expect(ok).toEqual(await collect(t, bigId, routedHeaders(auth())));
      const parts = ok.messages.flatMap((m) => {
        const d = (m as { data: { case: string; value: Uint8Array } }).data;
        return d.case === "chunk" ? [d.value] : [];
      });
      expect(Buffer.concat(parts).equals(big)).toBe(true);
      expect(await collect(t, emptyId, auth())).toEqual(await collect(t, emptyId, routedHeaders(auth())));
      for (const [id, headers] of [
        ["01900000-0000-7000-8000-000000000000", auth()],
        ["nope", auth()],
        [dirId, auth()],
        [bigId, { authorization: `Bearer ${other}` }],
        [bigId, { authorization: "Bearer not.a.token" }],
      ] as const) {
        const hot = await collect(t, id, headers);
        expect(hot.code, `${protocol} ${id}`).toBeDefined();
        expect(hot, `${protocol} ${id}`).toEqual(await collect(t, id, routedHeaders(headers)));
      }
    });
  }

  it("answers a garbled gRPC-Web message as the router does", async () => {
    const garbled = Buffer.from([0, 0, 0, 0, 3, 0xff, 0xff, 0xff]);
    const end = async (headers: Record<string, string>) => {
      const res = await fetch(`${s.url}/attic.v1.FileService/DownloadFile`, {
        method: "POST",
        headers: { "content-type": "application/grpc-web+proto", ...auth(), ...headers },
        body: garbled,
      });
      expect(res.status).toBe(200);
      expect(res.headers.get("content-type")).toBe("application/grpc-web+proto");
      const f = frames(Buffer.from(await res.arrayBuffer()));
      expect(f.map(([flags]) => flags)).toEqual([0x80]);
      return f[0]?.[1].toString().replace(/x-request-id: [^\r]+/, "x-request-id: id");
    };
    const hot = await end({});
    expect(hot).toMatch(/^grpc-message: parse%20binary.*\r\ngrpc-status: 3\r\nx-request-id: id\r\n$/s);
    expect(hot).toBe(await end({ origin: "http://elsewhere.example" }));
  });

  it("sends gRPC-Web's bytes as the router does for a file of many chunks", async () => {
    const call = async (headers: Record<string, string>) =>
      Buffer.from(
        await (
          await fetch(`${s.url}/attic.v1.FileService/DownloadFile`, {
            method: "POST",
            headers: { "content-type": "application/grpc-web+proto", ...auth(), ...headers },
            body: envelope(bigId),
          })
        ).arrayBuffer(),
      );
    const hot = await call({});
    expect(hot.equals(await call({ origin: "http://elsewhere.example" }))).toBe(true);
    expect(frames(hot).at(-1)?.[1].toString()).toBe("grpc-status: 0\r\n");
  });

  it("downloads byte-exact with a Connect client over HTTP/1.1 and HTTP/2", async () => {
    for (const httpVersion of ["1.1", "2"] as const) {
      const client = createClient(
        FileService,
        createConnectTransport({ baseUrl: s.url, httpVersion, useBinaryFormat: true }),
      );
      const parts: Uint8Array[] = [];
      for await (const m of client.downloadFile({ id: bigId }, { headers: auth() })) {
        if (m.data.case === "chunk") parts.push(m.data.value);
      }
      expect(Buffer.concat(parts).equals(big)).toBe(true);
    }
  });
});
