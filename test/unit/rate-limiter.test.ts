import { describe, expect, it } from "vitest";
import { createRateLimits, RateLimiter } from "../../src/platform/rate-limiter.ts";

/** A limiter on a hand-driven clock. */
function limiter(limit: number, maxKeys = 1000) {
  const clock = { now: 1_000_000 };
  return { clock, l: new RateLimiter(limit, maxKeys, 60_000, () => clock.now) };
}

describe("RateLimiter", () => {
  it("allows `limit` requests per window, then refuses, counting down remaining", () => {
    const { l } = limiter(3);
    const results = [1, 2, 3, 4, 5].map(() => l.hit("a"));
    expect(results.map((r) => r.allowed)).toEqual([true, true, true, false, false]);
    expect(results.map((r) => r.remaining)).toEqual([2, 1, 0, 0, 0]);
    expect(results.every((r) => r.limit === 3)).toBe(true);
  });

  it("opens a fresh window a minute after the first request, and says when in resetAt", () => {
    const { l, clock } = limiter(1);
    const first = l.hit("a");
    expect(first.resetAt).toBe(Math.ceil((clock.now + 60_000) / 1000));
    clock.now += 59_999;
    expect(l.hit("a").allowed).toBe(false);
    clock.now += 1;
    expect(l.hit("a").allowed).toBe(true);
  });

  it("counts keys separately", () => {
    const { l } = limiter(1);
    expect(l.hit("a").allowed).toBe(true);
    expect(l.hit("b").allowed).toBe(true);
    expect(l.hit("a").allowed).toBe(false);
  });

  it("keeps memory bounded to maxKeys however many clients come", () => {
    const { l } = limiter(5, 100);
    for (let i = 0; i < 50_000; i++) l.hit(`10.0.${i >> 8}.${i & 255}`);
    expect(l.size).toBe(100);
  });

  it("forgets the least recently seen client first, keeping an active one limited", () => {
    const { l } = limiter(2, 100);
    l.hit("busy");
    l.hit("busy");
    for (let i = 0; i < 1000; i++) {
      l.hit(`other-${i}`);
      if (i % 50 === 0) expect(l.hit("busy").allowed).toBe(false);
    }
    expect(l.hit("busy").allowed).toBe(false);
  });

  it("counts the addresses of one IPv6 /64 together, IPv4 addresses apart", () => {
    const limits = createRateLimits({
      global_per_minute: 2,
      login_per_minute: 1,
      auth_per_minute: 1,
      user_per_minute: 1,
      media_per_minute: 1,
      max_tracked_clients: 100,
    });
    expect(limits.ip.hit("2001:db8:1:2::a").allowed).toBe(true);
    expect(limits.ip.hit("2001:db8:1:2:ffff::b").allowed).toBe(true);
    expect(limits.ip.hit("2001:db8:1:2::c").allowed).toBe(false);
    expect(limits.ip.exhausted("2001:db8:1:2::d")).toBe(true);
    expect(limits.ip.hit("2001:db8:1:3::a").allowed).toBe(true);
    expect(limits.ip.hit("192.0.2.1").allowed).toBe(true);
    expect(limits.ip.hit("192.0.2.2").allowed).toBe(true);
  });
});
