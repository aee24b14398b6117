import { describe, expect, it } from "vitest";
import { expandIpv6, ipRateKey } from "../../src/platform/ip-key.ts";

describe("ipRateKey", () => {
  it("keeps IPv4 addresses and odd values as they are", () => {
    expect(ipRateKey("192.0.2.1")).toBe("192.0.2.1");
    expect(ipRateKey("unknown")).toBe("unknown");
  });

  it("keys IPv6 by its /64, however the address is written", () => {
    const key = "2001:db8:aa:1::/64";
    expect(ipRateKey("2001:db8:aa:1::1")).toBe(key);
    expect(ipRateKey("2001:0db8:00aa:0001:ffff:ffff:ffff:ffff")).toBe(key);
    expect(ipRateKey("2001:DB8:AA:1:0:0:0:2")).toBe(key);
    expect(ipRateKey("2001:db8:aa:2::1")).not.toBe(key);
    expect(ipRateKey("::1")).toBe("0:0:0:0::/64");
    expect(ipRateKey("fe80::1%eth0")).toBe("fe80:0:0:0::/64");
  });
});

describe("expandIpv6", () => {
  it("expands compressed forms and embedded IPv4", () => {
    expect(expandIpv6("::")).toEqual(["0", "0", "0", "0", "0", "0", "0", "0"]);
    expect(expandIpv6("1::")).toEqual(["1", "0", "0", "0", "0", "0", "0", "0"]);
    expect(expandIpv6("::ffff:192.0.2.1")).toEqual(["0", "0", "0", "0", "0", "ffff", "c000", "201"]);
    expect(expandIpv6("1:2:3:4:5:6:7:8")).toEqual(["1", "2", "3", "4", "5", "6", "7", "8"]);
  });

  it("refuses malformed text", () => {
    expect(expandIpv6("1::2::3")).toBeUndefined();
    expect(expandIpv6("1:2:3")).toBeUndefined();
  });
});
