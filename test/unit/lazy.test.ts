import type { IncomingMessage, ServerResponse } from "node:http";
import { describe, expect, it } from "vitest";
import { createLogger } from "../../src/log.ts";
import { lazyHandler, loadOnce } from "../../src/platform/lazy.ts";

describe("loadOnce", () => {
  it("loads once for concurrent callers and retries after a failure", async () => {
    let calls = 0;
    const load = loadOnce(async () => {
      calls++;
      if (calls === 1) throw new Error("first load fails");
      return calls;
    });
    await expect(Promise.all([load(), load()])).rejects.toThrow("first load fails");
    expect(calls).toBe(1);
    expect(await Promise.all([load(), load()])).toEqual([2, 2]);
    expect(await load()).toBe(2);
    expect(calls).toBe(2);
  });
});

describe("lazyHandler", () => {
  /** A response double recording what was written. */
  function response() {
    const headers: Record<string, unknown> = {};
    let ended: (body: string) => void = () => {};
    const done = new Promise<string>((r) => (ended = r));
    const res = {
      headersSent: false,
      statusCode: 200,
      setHeader: (k: string, v: unknown) => void (headers[k] = v),
      end: (body: string) => ended(body),
    };
    return { res: res as unknown as ServerResponse, headers, done };
  }
  const req = {} as IncomingMessage;

  it("answers requests that arrive while loading, in order, after the load", async () => {
    const order: number[] = [];
    let release: () => void = () => {};
    const gate = new Promise<void>((r) => (release = r));
    const handler = lazyHandler(
      async () => {
        await gate;
        return (_q, s) => {
          order.push(order.length);
          s.end(`ok ${order.length}`);
        };
      },
      createLogger("silent"),
      "test",
    );
    const a = response();
    const b = response();
    handler(req, a.res);
    handler(req, b.res);
    expect(order).toEqual([]);
    release();
    expect(await a.done).toBe("ok 1");
    expect(await b.done).toBe("ok 2");
  });

  it("answers 500 with the error body when loading fails, and loads again next time", async () => {
    let attempt = 0;
    const handler = lazyHandler(
      async () => {
        if (++attempt === 1) throw new Error("boom");
        return (_q, s) => s.end("loaded");
      },
      createLogger("silent"),
      "test",
    );
    const failed = response();
    handler(req, failed.res);
    expect(JSON.parse(await failed.done)).toEqual({
      error: { code: "ERR_INTERNAL", message: "internal error" },
    });
    expect(failed.res.statusCode).toBe(500);
    const next = response();
    handler(req, next.res);
    expect(await next.done).toBe("loaded");
  });
});
