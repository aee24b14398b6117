import { isIP } from "node:net";
import type { Ctx } from "./env.ts";

/**
 * The client's address: the socket's peer, or, only when `trustProxy` is on,
 * the first valid address of X-Forwarded-For.
 */
export function clientIp(c: Ctx, trustProxy: boolean): string {
  if (trustProxy) {
    const forwarded = c.req.header("x-forwarded-for")?.split(",")[0]?.trim();
    if (forwarded && isIP(forwarded)) return forwarded;
  }
  return c.env?.incoming?.socket?.remoteAddress ?? "unknown";
}
