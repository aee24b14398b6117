import { isIP } from "node:net";

/**
 * The client's address, for REST and RPC alike: the socket's peer, or, only
 * when `trustProxy` is on, the LAST address of X-Forwarded-For: the one the
 * trusted reverse proxy itself appended. Earlier entries come from the client
 * and could be forged to pick a fresh rate-limit budget. IPv4-mapped IPv6
 * (`::ffff:a.b.c.d`, seen when listening on `::`) is reported as plain IPv4,
 * so one client has one key.
 */
export function resolveClientIp(
  peer: string | undefined,
  forwardedFor: string | string[] | undefined,
  trustProxy: boolean,
): string {
  if (trustProxy && forwardedFor !== undefined) {
    const header = Array.isArray(forwardedFor) ? forwardedFor.join(",") : forwardedFor;
    const last = header.split(",").pop()?.trim();
    if (last && isIP(last)) return unmapIpv4(last);
  }
  return peer ? unmapIpv4(peer) : "unknown";
}

/** `::ffff:192.0.2.1` → `192.0.2.1`; anything else unchanged. */
export function unmapIpv4(ip: string): string {
  const m = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(ip);
  return m ? m[1]! : ip;
}
