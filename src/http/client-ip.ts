import { resolveClientIp } from "../platform/client-ip.ts";
import type { Ctx } from "./env.ts";

/** resolveClientIp (platform/client-ip.ts, shared with RPC) for a Hono request. */
export function clientIp(c: Ctx, trustProxy: boolean): string {
  return resolveClientIp(c.env?.incoming?.socket?.remoteAddress, c.req.header("x-forwarded-for"), trustProxy);
}
