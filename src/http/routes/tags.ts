import type { AppContext } from "../../context.ts";
import type { Router } from "../env.ts";
import { type Guards, newRouter } from "../router.ts";

/** REST routes of tags (not built yet). */
export function tagsRoutes(_ctx: AppContext, _guards: Guards): Router {
  return newRouter();
}
