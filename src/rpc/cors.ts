import { cors } from "@connectrpc/connect";
import type { Handler } from "../platform/listener.ts";

/** Every RPC path starts with the package: `/attic.v1.<Service>/<Method>`. */
const RPC_PATH = /^\/attic\.v1\.[A-Za-z]+\//;

const ALLOW_HEADERS = [...cors.allowedHeaders, "Authorization", "X-API-Key", "X-Request-Id"].join(", ");
const EXPOSE_HEADERS = [
  ...cors.exposedHeaders,
  "Attic-Error-Code",
  "X-Request-Id",
  "X-RateLimit-Limit",
  "X-RateLimit-Remaining",
  "X-RateLimit-Reset",
].join(", ");

/**
 * CORS for RPC calls from the origins of `server.cors_origins` (the same list
 * REST honours): answers preflights of RPC paths and adds the allow/expose
 * headers to their answers. Other paths go straight to `handler`, whose REST
 * app has its own CORS middleware. Without configured origins it is a no-op.
 */
export function withRpcCors(origins: readonly string[], handler: Handler): Handler {
  if (origins.length === 0) return handler;
  return function rpcCorsHandler(req, res) {
    const origin = req.headers.origin;
    if (!RPC_PATH.test(req.url ?? "") || typeof origin !== "string" || !origins.includes(origin)) {
      return handler(req, res);
    }
    res.setHeader("Access-Control-Allow-Origin", origin);
    res.setHeader("Vary", "Origin");
    res.setHeader("Access-Control-Expose-Headers", EXPOSE_HEADERS);
    if (req.method === "OPTIONS") {
      res.setHeader("Access-Control-Allow-Methods", cors.allowedMethods.join(", "));
      res.setHeader("Access-Control-Allow-Headers", ALLOW_HEADERS);
      res.setHeader("Access-Control-Max-Age", "600");
      res.statusCode = 204;
      res.end();
      return;
    }
    handler(req, res);
  };
}
