import type { AppContext } from "../../context.ts";
import type { Router } from "../env.ts";
import { type Guards, newRouter } from "../router.ts";

/** REST routes of settings (not built yet). */
export function settingsRoutes(_ctx: AppContext, _guards: Guards): Router {
  return newRouter();
}
