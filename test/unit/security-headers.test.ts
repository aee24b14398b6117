import { describe, expect, it } from "vitest";
import { SECURITY_HEADERS, securedHead } from "../../src/platform/security-headers.ts";

const pairs = (flat: string[]) => {
  const out: [string, string][] = [];
  for (let i = 0; i < flat.length; i += 2) out.push([flat[i]!, flat[i + 1]!]);
  return out;
};

describe("securedHead", () => {
  it("gives the whole table, then the parts' headers", () => {
    const head = pairs(securedHead({ "x-request-id": "r1" }, { "content-type": "application/json" }));
    expect(head).toEqual([
      ...Object.entries(SECURITY_HEADERS),
      ["x-request-id", "r1"],
      ["content-type", "application/json"],
    ]);
  });

  it("lets a part replace a table header it spells the same way, sending it once", () => {
    const csp = "sandbox; default-src 'none'";
    const head = pairs(securedHead({ "x-request-id": "r1" }, { "Content-Security-Policy": csp }));
    const named = head.filter(([k]) => k === "Content-Security-Policy");
    expect(named).toEqual([["Content-Security-Policy", csp]]);
    expect(head.filter(([k]) => k === "X-Frame-Options")).toEqual([["X-Frame-Options", "DENY"]]);
  });

  it("lets a later part win over an earlier one, sending each name once", () => {
    const head = pairs(securedHead({ a: "1", b: "2" }, { b: "3" }));
    expect(head.filter(([k]) => k === "b")).toEqual([["b", "3"]]);
    expect(head.filter(([k]) => k === "a")).toEqual([["a", "1"]]);
  });
});
