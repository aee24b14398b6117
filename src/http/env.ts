import type { IncomingMessage, ServerResponse } from "node:http";
import type { Http2ServerRequest, Http2ServerResponse } from "node:http2";
import type { OpenAPIHono } from "@hono/zod-openapi";
import type { Context } from "hono";
import type { Actor } from "../domain/actor.ts";
import type { Logger } from "../log.ts";

/** Hono environment of every REST route. */
export interface Env {
  Bindings: {
    incoming: IncomingMessage | Http2ServerRequest;
    outgoing: ServerResponse | Http2ServerResponse;
  };
  Variables: {
    requestId: string;
    log: Logger;
    /** Set by requireAuth. */
    actor: Actor;
    /** Route pattern for metrics and logs. */
    clientIp: string;
  };
}

export type Ctx = Context<Env>;
export type Router = OpenAPIHono<Env>;

/** The authenticated caller; only valid behind requireAuth. */
export function actorOf(c: Ctx): Actor {
  return c.get("actor");
}
