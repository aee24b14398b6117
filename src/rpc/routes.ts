import type { ConnectRouter } from "@connectrpc/connect";
import type { AppContext } from "../context.ts";

/** Registers every Connect service on the router (not built yet). */
export function rpcRoutes(_ctx: AppContext): (router: ConnectRouter) => void {
  return () => {};
}
