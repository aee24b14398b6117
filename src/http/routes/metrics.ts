import type { AppContext } from "../../context.ts";
import type { Router } from "../env.ts";
import { newRouter } from "../router.ts";

/** `/metrics`: Prometheus text exposition, public as docs/api.md says. */
export function metricsRoutes(ctx: AppContext): Router {
  const r = newRouter();
  r.get("/metrics", async (c) => {
    const body = await ctx.metrics.registry.metrics();
    return c.body(body, 200, {
      "Content-Type": ctx.metrics.registry.contentType,
      "Cache-Control": "no-store",
    });
  });
  return r;
}
