import type { IncomingMessage } from "node:http";
import type { Http2ServerRequest } from "node:http2";
import {
  type ContextValues,
  createContextKey,
  createContextValues,
  type HandlerContext,
} from "@connectrpc/connect";
import type { AppContext } from "../context.ts";
import type { Actor } from "../domain/actor.ts";
import { AppError } from "../errors.ts";
import { resolveClientIp } from "../platform/client-ip.ts";

/** The authenticated caller, set by the auth interceptor before any method runs. */
export const kActor = createContextKey<Actor | undefined>(undefined, { description: "attic actor" });

/** The client's address, as REST computes it (X-Forwarded-For only with server.trust_proxy). */
export const kClientIp = createContextKey<string>("unknown", { description: "attic client ip" });

/**
 * The adapter's `contextValues` factory: records the client address of every
 * call, which interceptors cannot see otherwise.
 */
export function rpcContextValues(
  ctx: AppContext,
): (req: IncomingMessage | Http2ServerRequest) => ContextValues {
  return (req) => {
    const values = createContextValues();
    const ip = resolveClientIp(
      req.socket?.remoteAddress,
      req.headers["x-forwarded-for"],
      ctx.cfg.server.trust_proxy,
    );
    return values.set(kClientIp, ip);
  };
}

/** The caller of an RPC; every service requires one, so its absence is a wiring bug, answered 401. */
export function actorOf(call: HandlerContext): Actor {
  const actor = call.values.get(kActor);
  if (!actor) throw new AppError("UNAUTHENTICATED", "authentication required");
  return actor;
}
