import type { IncomingMessage, ServerResponse } from "node:http";

/**
 * The security headers of every response (docs/api.md, "Security headers"):
 * REST, RPC (Connect, gRPC, gRPC-Web, errors included), downloads, the web
 * UI and Swagger. One table, set once per response by `withSecurityHeaders`
 * on the Node response before any handler runs; a handler that needs a
 * stricter Content-Security-Policy (downloads, the web UI, Swagger) passes
 * its own, which wins because headers given to writeHead override these.
 */
export const SECURITY_HEADERS: Readonly<Record<string, string>> = {
  "Content-Security-Policy": "default-src 'self'; frame-ancestors 'none'",
  "X-Frame-Options": "DENY",
  "X-Content-Type-Options": "nosniff",
  "Referrer-Policy": "strict-origin-when-cross-origin",
  "Cross-Origin-Opener-Policy": "same-origin",
  "Permissions-Policy": "camera=(), microphone=(), geolocation=()",
  // Sent always, as the API description asks; browsers ignore it over plain HTTP.
  "Strict-Transport-Security": "max-age=63072000; includeSubDomains; preload",
};

type NodeHandler = (req: IncomingMessage, res: ServerResponse) => void;

/** Wraps the server's request handler so every response carries SECURITY_HEADERS. */
export function withSecurityHeaders<H extends NodeHandler>(handler: H): H {
  return function securityHeadersHandler(req: IncomingMessage, res: ServerResponse) {
    for (const name in SECURITY_HEADERS) res.setHeader(name, SECURITY_HEADERS[name]!);
    return handler(req, res);
  } as H;
}
