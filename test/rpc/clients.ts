import type { DescService } from "@bufbuild/protobuf";
import { type Client, createClient, type Interceptor, type Transport } from "@connectrpc/connect";
import {
  createConnectTransport,
  createGrpcTransport,
  createGrpcWebTransport,
} from "@connectrpc/connect-node";

export type Protocol = "grpc-h2c" | "connect-json-h1" | "connect-binary-h2c" | "grpc-web-h1";
export const PROTOCOLS: Protocol[] = ["grpc-h2c", "connect-json-h1", "connect-binary-h2c", "grpc-web-h1"];

export type Credential = string | { apiKey: string } | undefined;

const withCredential =
  (cred: Credential): Interceptor =>
  (next) =>
  (req) => {
    if (typeof cred === "string") req.header.set("authorization", `Bearer ${cred}`);
    else if (cred) req.header.set("x-api-key", cred.apiKey);
    return next(req);
  };

/** A real transport of the given protocol against a test server. */
export function transport(baseUrl: string, protocol: Protocol, cred?: Credential): Transport {
  const interceptors = [withCredential(cred)];
  switch (protocol) {
    case "grpc-h2c":
      // gRPC is always HTTP/2; with an http:// URL that is h2c with prior knowledge.
      return createGrpcTransport({ baseUrl, interceptors });
    case "connect-json-h1":
      return createConnectTransport({ baseUrl, httpVersion: "1.1", useBinaryFormat: false, interceptors });
    case "connect-binary-h2c":
      return createConnectTransport({ baseUrl, httpVersion: "2", useBinaryFormat: true, interceptors });
    case "grpc-web-h1":
      return createGrpcWebTransport({ baseUrl, httpVersion: "1.1", interceptors });
  }
}

/** A typed client of `service` over `protocol`, sending `cred`. */
export function rpcClient<T extends DescService>(
  baseUrl: string,
  service: T,
  cred?: Credential,
  protocol: Protocol = "grpc-h2c",
): Client<T> {
  return createClient(service, transport(baseUrl, protocol, cred));
}

/** A Connect JSON call over plain fetch (HTTP/1.1), as a browser would make it. */
export async function connectJson(
  baseUrl: string,
  procedure: string,
  body: unknown,
  cred?: Credential,
): Promise<{
  status: number;
  headers: Headers;
  // biome-ignore lint/suspicious/noExplicitAny: test bodies are inspected loosely
  body: any;
}> {
  const headers: Record<string, string> = { "content-type": "application/json" };
  if (typeof cred === "string") headers.authorization = `Bearer ${cred}`;
  else if (cred) headers["x-api-key"] = cred.apiKey;
  const res = await fetch(`${baseUrl}/${procedure}`, { method: "POST", headers, body: JSON.stringify(body) });
  const text = await res.text();
  return { status: res.status, headers: res.headers, body: text ? JSON.parse(text) : undefined };
}
