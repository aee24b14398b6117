import { createConnectRouter } from "@connectrpc/connect";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createRateLimits } from "../../src/platform/rate-limiter.ts";
import { isRpcPath } from "../../src/rpc/paths.ts";
import { rpcRoutes } from "../../src/rpc/routes.ts";
import { startServer, type TestServer } from "../helpers/server.ts";

/** server.ts sends only isRpcPath requests to the RPC stack: every method must be among them. */
describe("RPC paths", () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startServer();
  });
  afterAll(async () => {
    await s.close();
  });

  it("every registered method's path is an RPC path, and REST paths are not", () => {
    const router = createConnectRouter();
    rpcRoutes(s.server.ctx, createRateLimits(s.server.ctx.cfg.rate_limit))(router);
    const paths = router.handlers.map((h) => h.requestPath);
    expect(paths.length).toBeGreaterThan(40);
    for (const p of paths) expect(isRpcPath(p), p).toBe(true);
    expect(isRpcPath("/grpc.reflection.v1.ServerReflection/ServerReflectionInfo")).toBe(true);
    for (const p of ["/health", "/api/v1/files", "/dav/", "/", "/swagger/rpc/file.json", undefined])
      expect(isRpcPath(p)).toBe(false);
  });
});
