import type { IncomingMessage, ServerResponse } from "node:http";
import type { Http2ServerRequest } from "node:http2";
import { create, fromBinary, toBinary } from "@bufbuild/protobuf";
import { BinaryWriter, WireType } from "@bufbuild/protobuf/wire";
import { Code, ConnectError } from "@connectrpc/connect";
import { encodeEnvelope } from "@connectrpc/connect/protocol";
import { endStreamFlag, endStreamToJson } from "@connectrpc/connect/protocol-connect";
import { setTrailerStatus } from "@connectrpc/connect/protocol-grpc";
import { trailerFlag, trailerSerialize } from "@connectrpc/connect/protocol-grpc-web";
import type { AppContext } from "../context.ts";
import { authenticate } from "../domain/auth/authenticate.ts";
import { DownloadFileRequestSchema, DownloadFileResponseSchema } from "../gen/attic/v1/file_pb.ts";
import { resolveClientIp } from "../platform/client-ip.ts";
import { pumpFramed } from "../platform/file-pump.ts";
import type { RateLimits } from "../platform/rate-limiter.ts";
import { requestIdOf } from "../platform/request-id.ts";
import { toConnectError } from "./connect-error.ts";
import { fileToProto } from "./convert.ts";
import { codeName, hit, recordCall } from "./interceptors.ts";

const PATH = "/attic.v1.FileService/DownloadFile";
const PROCEDURE = "attic.v1.FileService/DownloadFile";
/** The protocols taken here, by request content type (binary only), and the content type each answers with. */
type Wire = "connect" | "grpc" | "grpc-web";
const WIRES: Record<string, Wire> = {
  "application/connect+proto": "connect",
  "application/grpc": "grpc",
  "application/grpc+proto": "grpc",
  "application/grpc-web": "grpc-web",
  "application/grpc-web+proto": "grpc-web",
};
const RESPONSE_TYPE: Record<Wire, string> = {
  connect: "application/connect+proto",
  grpc: "application/grpc+proto",
  "grpc-web": "application/grpc-web+proto",
};
/** DownloadFileResponse's `chunk` field (proto/attic/v1/file.proto). */
const CHUNK_FIELD = DownloadFileResponseSchema.fields.find((f) => f.name === "chunk")!.number;
/** As files.rpc.ts: the documented chunk size of DownloadFile. */
const CHUNK_BYTES = 64 * 1024;
/** A DownloadFileRequest is an id: anything longer is not one. */
const MAX_REQUEST_BYTES = 64 * 1024;

/**
 * What goes before `n` bytes of file to make them one DownloadFileResponse
 * message: the envelope (flags 0, message length), then the `chunk` field's
 * tag and length, encoded by protobuf's own writer.
 */
function chunkFrame(n: number): Uint8Array {
  const field = new BinaryWriter().tag(CHUNK_FIELD, WireType.LengthDelimited).uint32(n).finish();
  const frame = Buffer.allocUnsafe(5 + field.length);
  frame[0] = 0;
  frame.writeUInt32BE(field.length + n, 1);
  frame.set(field, 5);
  return frame;
}

/**
 * Ends the response the way each protocol ends a stream: Connect with its
 * end-of-stream message, gRPC with HTTP/2 trailers, gRPC-Web with a trailer
 * frame; each carrying the error, if any, and its metadata (no other
 * trailers), encoded by Connect's own functions.
 */
function endStream(res: ServerResponse, wire: Wire, error: ConnectError | undefined): void {
  if (wire === "connect") {
    const json = endStreamToJson(new Headers(), error, undefined);
    res.end(encodeEnvelope(endStreamFlag, new TextEncoder().encode(JSON.stringify(json))));
    return;
  }
  const trailer = setTrailerStatus(new Headers(), error);
  if (wire === "grpc-web") {
    res.end(encodeEnvelope(trailerFlag, trailerSerialize(trailer)));
    return;
  }
  res.addTrailers(Object.fromEntries(trailer));
  res.end();
}

/**
 * FileService.DownloadFile over the Connect, gRPC (HTTP/2) and gRPC-Web
 * protocols (binary, uncompressed, no deadline), with each chunk written
 * from the pooled read buffers behind its own frame header: Connect's
 * generic path serializes every 64 KiB message twice
 * (protobuf, then envelope), and a fifth of its time went to collecting
 * those copies. The same steps as the router's interceptors and method, in
 * their order and from the same functions (request id, authenticate, the
 * per-address and per-user limits, files.get and openContent with
 * organization scoping and folder grants, toConnectError, recordCall), and
 * the same bytes on the wire (the three protocols frame messages alike and
 * differ only in how the stream ends). JSON, compressed requests, calls
 * with a deadline (the router enforces it) and cross-origin calls go to the
 * router. test/rpc/download-hot-path.test.ts compares both paths
 * message by message, per protocol.
 */
export function rpcDownloadHotPath(
  ctx: AppContext,
  limits: RateLimits,
): (req: IncomingMessage | Http2ServerRequest, res: ServerResponse) => boolean {
  const limited = ctx.cfg.rate_limit.enabled;
  return function rpcDownloadHot(req, res) {
    if (req.method !== "POST" || req.url !== PATH) return false;
    const h = req.headers;
    const wire = WIRES[h["content-type"] ?? ""];
    if (!wire || h.origin !== undefined) return false;
    const encoding = h[wire === "connect" ? "connect-content-encoding" : "grpc-encoding"];
    if (encoding !== undefined && encoding !== "identity") return false;
    // A deadline is the router's to enforce.
    if (h[wire === "connect" ? "connect-timeout-ms" : "grpc-timeout"] !== undefined) return false;
    // gRPC needs HTTP/2's trailers.
    if (wire === "grpc" && req.httpVersionMajor !== 2) return false;
    if (!h.authorization && !h["x-api-key"]) return false;
    void answer(req, res, wire);
    return true;
  };

  async function answer(
    req: IncomingMessage | Http2ServerRequest,
    res: ServerResponse,
    wire: Wire,
  ): Promise<void> {
    const start = performance.now();
    const h = req.headers;
    const requestId = requestIdOf(h["x-request-id"] as string | undefined);
    const head: Record<string, string> = { "content-type": RESPONSE_TYPE[wire], "x-request-id": requestId };
    let userId: string | undefined;
    const done = (code: string) => recordCall(ctx, { procedure: PROCEDURE, code, start, requestId, userId });
    // As the router: an error before the method (authentication, limits) carries the request id in
    // its metadata; one from the method's stream does not (the id is already in the head).
    let inMethod = false;
    const fail = (err: unknown) => {
      const mapped = toConnectError(err, ctx.log);
      if (!inMethod) mapped.metadata.set("X-Request-Id", requestId);
      done(codeName(mapped));
      if (!res.headersSent) res.writeHead(200, head);
      endStream(res, wire, mapped);
    };
    try {
      const body = await readBody(req);
      // Exactly one uncompressed message, as the router accepts.
      const length = body.length >= 5 ? body.readUInt32BE(1) : -1;
      if (body.length < 5 || body[0] !== 0 || length !== body.length - 5) {
        throw new ConnectError("protocol error: expected one uncompressed message", Code.InvalidArgument);
      }
      let id: string;
      try {
        id = fromBinary(DownloadFileRequestSchema, body.subarray(5)).id;
      } catch (err) {
        // The router answers internal here; a message the client garbled is the client's error.
        throw new ConnectError(`parse binary: ${(err as Error).message}`, Code.InvalidArgument);
      }
      let actor: Awaited<ReturnType<typeof authenticate>>;
      try {
        actor = await authenticate(ctx.services.auth, { get: (n) => h[n] as string | undefined });
      } catch (err) {
        // As authInterceptor: a failed credential costs the address.
        if (limited) {
          const ip = resolveClientIp(
            req.socket?.remoteAddress,
            h["x-forwarded-for"],
            ctx.cfg.server.trust_proxy,
          );
          hit(ctx, "global", limits.ip, ip);
        }
        throw err;
      }
      userId = actor.userId;
      if (limited) Object.assign(head, hit(ctx, "user", limits.user, actor.userId));
      // No id check here: the router's applies to unary calls only, and a malformed id is not_found.
      inMethod = true;
      const files = ctx.services.files;
      const file = files.get(actor, id);
      const content = await files.openContent(actor, id);
      files.countDownload("rpc");
      const opened = content.size > 0 ? await content.open() : undefined;
      res.writeHead(200, head);
      const metadata = create(DownloadFileResponseSchema, {
        data: { case: "metadata", value: fileToProto(file) },
      });
      res.write(encodeEnvelope(0, toBinary(DownloadFileResponseSchema, metadata)));
      if (opened) await pumpFramed(opened, 0, content.size - 1, res, CHUNK_BYTES, chunkFrame);
      endStream(res, wire, undefined);
      done("ok");
    } catch (err) {
      if (res.headersSent && res.destroyed) {
        done("canceled");
        return;
      }
      fail(err);
    }
  }
}

/** The request body, at most MAX_REQUEST_BYTES (invalid_argument beyond). */
function readBody(req: IncomingMessage | Http2ServerRequest): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const parts: Buffer[] = [];
    let size = 0;
    req.on("data", (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_REQUEST_BYTES) {
        req.removeAllListeners("data");
        req.resume();
        reject(new ConnectError("message larger than a DownloadFileRequest can be", Code.InvalidArgument));
        return;
      }
      parts.push(chunk);
    });
    req.once("end", () => resolve(Buffer.concat(parts)));
    req.once("error", reject);
  });
}
