import type { MiddlewareHandler } from "hono";
import { AppError } from "../../errors.ts";
import type { Env } from "../env.ts";

/** Deepest JSON nesting accepted; Attic's bodies need a handful of levels. */
export const MAX_JSON_DEPTH = 32;

/** Nesting depth of a JSON text, counting brackets outside strings; stops early past `limit`. */
export function jsonDepth(text: string, limit = Number.POSITIVE_INFINITY): number {
  let depth = 0;
  let max = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text.charCodeAt(i);
    if (inString) {
      if (ch === 92 /* \ */) i++;
      else if (ch === 34 /* " */) inString = false;
    } else if (ch === 34) inString = true;
    else if (ch === 123 || ch === 91) {
      if (++depth > max) {
        max = depth;
        if (max > limit) return max;
      }
    } else if (ch === 125 || ch === 93) depth--;
  }
  return max;
}

/**
 * Guards JSON bodies before any handler parses them: at most `maxBytes`
 * (413 as soon as it is crossed, without buffering the rest), at most
 * MAX_JSON_DEPTH levels deep (400), and well-formed (400).
 */
export function jsonGuard(maxBytes: number): MiddlewareHandler<Env> {
  return async function jsonGuardMiddleware(c, next) {
    const type = c.req.header("content-type") ?? "";
    if (!/^application\/(.+\+)?json\b/i.test(type) || !c.req.raw.body) return next();
    const declared = Number(c.req.header("content-length") ?? Number.NaN);
    if (declared > maxBytes) throw new AppError("PAYLOAD_TOO_LARGE", `JSON body over ${maxBytes} bytes`);
    const reader = c.req.raw.body.getReader();
    const chunks: Uint8Array[] = [];
    let total = 0;
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      total += value.byteLength;
      if (total > maxBytes) {
        await reader.cancel().catch(() => {});
        throw new AppError("PAYLOAD_TOO_LARGE", `JSON body over ${maxBytes} bytes`);
      }
      chunks.push(value);
    }
    const text = Buffer.concat(chunks).toString("utf8");
    if (jsonDepth(text, MAX_JSON_DEPTH) > MAX_JSON_DEPTH) {
      throw new AppError("VALIDATION", `JSON nested deeper than ${MAX_JSON_DEPTH} levels`);
    }
    try {
      JSON.parse(text);
    } catch {
      throw new AppError("VALIDATION", "malformed JSON body");
    }
    // Hand the text to validators without a second read of the stream.
    (c.req.bodyCache as Record<string, unknown>).text = Promise.resolve(text);
    await next();
  };
}
