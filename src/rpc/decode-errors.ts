import type { ConnectRouter } from "@connectrpc/connect";
import type { UniversalHandler, UniversalServerResponse } from "@connectrpc/connect/protocol";
import { ERRORS } from "../errors.ts";

/**
 * connect-es decodes a request's binary protobuf before any interceptor runs
 * and reports a body it cannot decode as `internal` ("parse binary: …"),
 * where the same mistake in JSON is `invalid_argument`. A client's bad bytes
 * are its own fault, not a server failure: this rewrites exactly that answer,
 * on the way out, to `invalid_argument` (HTTP 400 with ERR_VALIDATION for
 * Connect; grpc-status 3 for gRPC and gRPC-Web). Nothing else is touched.
 */
const PARSE_FAILURE = "parse binary";
const INTERNAL = 13;
const INVALID_ARGUMENT = 3;

async function collect(body: AsyncIterable<Uint8Array>): Promise<Uint8Array> {
  const parts: Uint8Array[] = [];
  for await (const part of body) parts.push(part);
  return Buffer.concat(parts);
}

async function* once(bytes: Uint8Array): AsyncIterable<Uint8Array> {
  yield bytes;
}

/** Connect unary: a 500 whose JSON error says the request did not decode. */
async function fixConnectUnary(res: UniversalServerResponse): Promise<UniversalServerResponse> {
  if (res.status !== 500 || !res.body || !res.header?.get("content-type")?.startsWith("application/json")) {
    return res;
  }
  const bytes = await collect(res.body);
  let error: { code?: string; message?: string } | undefined;
  try {
    error = JSON.parse(Buffer.from(bytes).toString("utf8"));
  } catch {
    error = undefined;
  }
  if (error?.code !== "internal" || !error.message?.startsWith(PARSE_FAILURE)) {
    return { ...res, body: once(bytes) };
  }
  const body = Buffer.from(JSON.stringify({ code: "invalid_argument", message: error.message }));
  const header = new Headers(res.header);
  header.set("content-length", String(body.byteLength));
  header.set("attic-error-code", ERRORS.VALIDATION.wire);
  return { ...res, status: ERRORS.VALIDATION.http, header, body: once(body) };
}

/** gRPC: the status travels in HTTP trailers, known once the body has ended. */
function fixGrpcTrailer(trailer: Headers | undefined): void {
  if (trailer?.get("grpc-status") !== String(INTERNAL)) return;
  const message = decodeURIComponent(trailer.get("grpc-message") ?? "");
  if (message.startsWith(PARSE_FAILURE)) trailer.set("grpc-status", String(INVALID_ARGUMENT));
}

/** gRPC-Web: the trailers are the body's last frame (flag 0x80). */
function fixGrpcWebFrame(chunk: Uint8Array): Uint8Array {
  if (chunk.byteLength < 5 || (chunk[0]! & 0x80) === 0) return chunk;
  const text = Buffer.from(chunk.subarray(5)).toString("latin1");
  if (!/^grpc-status:\s*13\r?$/im.test(text) || !/^grpc-message:\s*parse(%20| )binary/im.test(text))
    return chunk;
  const fixed = Buffer.from(
    text.replace(/^grpc-status:\s*13(\r?)$/im, `grpc-status: ${INVALID_ARGUMENT}$1`),
    "latin1",
  );
  const frame = Buffer.alloc(5 + fixed.byteLength);
  frame[0] = chunk[0]!;
  frame.writeUInt32BE(fixed.byteLength, 1);
  fixed.copy(frame, 5);
  return frame;
}

async function* watchBody(res: UniversalServerResponse, grpcWeb: boolean): AsyncIterable<Uint8Array> {
  for await (const chunk of res.body!) yield grpcWeb ? fixGrpcWebFrame(chunk) : chunk;
  fixGrpcTrailer(res.trailer);
}

function wrap(handler: UniversalHandler): UniversalHandler {
  const wrapped = async (req: Parameters<UniversalHandler>[0]) => {
    const res = await handler(req);
    const type = res.header?.get("content-type") ?? "";
    if (type.startsWith("application/grpc-web")) return { ...res, body: res.body && watchBody(res, true) };
    if (type.startsWith("application/grpc")) {
      if (!res.body) fixGrpcTrailer(res.trailer);
      return res.body ? { ...res, body: watchBody(res, false) } : res;
    }
    return fixConnectUnary(res);
  };
  return Object.assign(wrapped, {
    protocolNames: handler.protocolNames,
    service: handler.service,
    method: handler.method,
    requestPath: handler.requestPath,
    allowedMethods: handler.allowedMethods,
    supportedContentType: handler.supportedContentType,
  });
}

/** Applies the rewrite to every handler registered on `router` so far. */
export function decodeErrorsAsInvalidArgument(router: ConnectRouter): void {
  const handlers = router.handlers;
  for (let i = 0; i < handlers.length; i++) handlers[i] = wrap(handlers[i]!);
}
