import type { AppContext } from "../../context.ts";
import type { Router } from "../env.ts";
import { type Guards, newRouter } from "../router.ts";

/** REST routes of playback (not built yet). */
export function playbackRoutes(_ctx: AppContext, _guards: Guards): Router {
  return newRouter();
}
