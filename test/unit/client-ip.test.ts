import { describe, expect, it } from "vitest";
import { unmapIpv4 } from "../../src/http/client-ip.ts";

describe("unmapIpv4", () => {
  it("turns IPv4-mapped IPv6 into IPv4 and leaves other addresses alone", () => {
    expect(unmapIpv4("::ffff:192.0.2.1")).toBe("192.0.2.1");
    expect(unmapIpv4("::FFFF:10.0.0.1")).toBe("10.0.0.1");
    expect(unmapIpv4("192.0.2.1")).toBe("192.0.2.1");
    expect(unmapIpv4("2001:db8::1")).toBe("2001:db8::1");
    expect(unmapIpv4("::ffff:abcd:1")).toBe("::ffff:abcd:1");
  });
});
