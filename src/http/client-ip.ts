import { isIP } from "node:net";
import type { Ctx } from "./env.ts";

/**
 * The client's address: the socket's peer, or, only when `trustProxy` is on,
 * the LAST address of X-Forwarded-For: the one the trusted reverse proxy
 * itself appended. Earlier entries come from the client and could be forged
 * to pick a fresh rate-limit budget. IPv4-mapped IPv6 (`::ffff:a.b.c.d`, seen
 * when listening on `::`) is reported as plain IPv4, so one client has one key.
 */
export function clientIp(c: Ctx, trustProxy: boolean): string {
  if (trustProxy) {
    const forwarded = c.req.header("x-forwarded-for")?.split(",").pop()?.trim();
    if (forwarded && isIP(forwarded)) return unmapIpv4(forwarded);
  }
  const peer = c.env?.incoming?.socket?.remoteAddress;
  return peer ? unmapIpv4(peer) : "unknown";
}

/** `::ffff:192.0.2.1` → `192.0.2.1`; anything else unchanged. */
export function unmapIpv4(ip: string): string {
  const m = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(ip);
  return m ? m[1]! : ip;
}
