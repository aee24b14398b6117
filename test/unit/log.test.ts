import { describe, expect, it } from "vitest";
import { createLogger, unredacted } from "../../src/log.ts";

describe("logger", () => {
  const capture = () => {
    const out: Record<string, unknown>[] = [];
    const log = createLogger("info", { write: (line: string) => void out.push(JSON.parse(line)) });
    return { out, log };
  };

  it("redacts secrets wherever the paths name them", () => {
    const { out, log } = capture();
    log.info({ password: "p", user: { token: "t" }, req: { headers: { authorization: "Bearer x" } } }, "m");
    expect(out[0]).toMatchObject({
      password: "[redacted]",
      user: { token: "[redacted]" },
      req: { headers: { authorization: "[redacted]" } },
    });
  });

  it("unredacted keeps the bindings and level, and skips only the redaction pass", () => {
    const { out, log } = capture();
    const lines = unredacted(log.child({ area: "x" }));
    lines.debug({ a: 1 }, "below the level");
    lines.info({ status: 200 }, "request");
    expect(out).toHaveLength(1);
    expect(out[0]).toMatchObject({ service: "attic", area: "x", status: 200, msg: "request" });
    // The parent still redacts.
    log.info({ token: { token: "t" } }, "m");
    expect(out[1]).toMatchObject({ token: { token: "[redacted]" } });
  });
});
