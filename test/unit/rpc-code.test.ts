import { Code as ConnectCode } from "@connectrpc/connect";
import { describe, expect, it } from "vitest";
import { Code } from "../../src/platform/rpc-code.ts";

describe("rpc-code", () => {
  it("has every Connect code with the enum's value", () => {
    const names = Object.keys(ConnectCode).filter((k) => Number.isNaN(Number(k)));
    expect(Object.keys(Code).sort()).toEqual(names.sort());
    for (const name of names)
      expect(Code[name as keyof typeof Code]).toBe(ConnectCode[name as keyof typeof ConnectCode]);
  });
});
