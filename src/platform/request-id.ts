import { randomUUID } from "node:crypto";

/**
 * The id of one request, for logs and the X-Request-Id answer: the client's
 * own when it sent a short, plain one (a proxy's id keeps its meaning across
 * hops), else a fresh UUID. Anything else (long, spaces, control characters)
 * could forge or break log lines, so it is replaced. REST and RPC both use it.
 */
export function requestIdOf(incoming: string | null | undefined): string {
  return incoming && /^[\w.-]{1,64}$/.test(incoming) ? incoming : randomUUID();
}
