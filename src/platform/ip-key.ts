import { isIP } from "node:net";

/**
 * The rate-limit key of a client address: IPv4 as it is, IPv6 by its /64
 * prefix. One home or one server gets a whole /64, so keying on the full
 * IPv6 address would hand a client 2^64 fresh budgets (and let it flush the
 * limiter's bounded memory of other clients).
 */
export function ipRateKey(ip: string): string {
  if (isIP(ip) !== 6) return ip;
  const groups = expandIpv6(ip);
  return groups ? `${groups.slice(0, 4).join(":")}::/64` : ip;
}

/** The eight 16-bit groups of an IPv6 address, lower-case hex without leading zeros; undefined if malformed. */
export function expandIpv6(ip: string): string[] | undefined {
  let text = ip.split("%")[0]!.toLowerCase();
  // A trailing dotted IPv4 (::ffff:1.2.3.4, 64:ff9b::1.2.3.4) becomes two groups.
  const v4 = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (v4) {
    const [a, b, c, d] = v4.slice(1).map(Number) as [number, number, number, number];
    text = `${text.slice(0, v4.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const halves = text.split("::");
  if (halves.length > 2) return undefined;
  const head = halves[0] ? halves[0].split(":") : [];
  const tail = halves.length === 2 && halves[1] ? halves[1].split(":") : [];
  const missing = 8 - head.length - tail.length;
  if (halves.length === 1 ? missing !== 0 : missing < 1) return undefined;
  const groups = [...head, ...Array<string>(halves.length === 2 ? missing : 0).fill("0"), ...tail];
  return groups.map((g) => Number.parseInt(g, 16).toString(16));
}
