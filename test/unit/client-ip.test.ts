import { describe, expect, it } from "vitest";
import { resolveClientIp, unmapIpv4 } from "../../src/platform/client-ip.ts";

describe("unmapIpv4", () => {
  it("turns IPv4-mapped IPv6 into IPv4 and leaves other addresses alone", () => {
    expect(unmapIpv4("::ffff:192.0.2.1")).toBe("192.0.2.1");
    expect(unmapIpv4("::FFFF:10.0.0.1")).toBe("10.0.0.1");
    expect(unmapIpv4("192.0.2.1")).toBe("192.0.2.1");
    expect(unmapIpv4("2001:db8::1")).toBe("2001:db8::1");
    expect(unmapIpv4("::ffff:abcd:1")).toBe("::ffff:abcd:1");
  });
});

describe("resolveClientIp", () => {
  it("uses the peer unless the proxy is trusted", () => {
    expect(resolveClientIp("192.0.2.1", "203.0.113.5", false)).toBe("192.0.2.1");
    expect(resolveClientIp(undefined, undefined, false)).toBe("unknown");
  });

  it("behind a trusted proxy, takes the last X-Forwarded-For entry, across repeated headers", () => {
    expect(resolveClientIp("10.0.0.1", "6.6.6.6, 203.0.113.5", true)).toBe("203.0.113.5");
    expect(resolveClientIp("10.0.0.1", ["6.6.6.6", "203.0.113.5"], true)).toBe("203.0.113.5");
    expect(resolveClientIp("10.0.0.1", "::ffff:203.0.113.5", true)).toBe("203.0.113.5");
  });

  it("falls back to the peer when the header is missing or not an address", () => {
    expect(resolveClientIp("10.0.0.1", undefined, true)).toBe("10.0.0.1");
    expect(resolveClientIp("10.0.0.1", "203.0.113.5, garbage", true)).toBe("10.0.0.1");
  });
});
