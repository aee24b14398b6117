import { createRoute, z } from "@hono/zod-openapi";
import type { AppContext } from "../../context.ts";
import type { Router } from "../env.ts";
import { newRouter } from "../router.ts";

const HealthSchema = z
  .object({
    status: z.enum(["healthy", "degraded", "unhealthy"]),
    version: z.string(),
    details: z.record(z.string(), z.unknown()).optional(),
  })
  .openapi("Health");

const route = createRoute({
  method: "get",
  path: "/health",
  tags: ["Health"],
  summary: "Service health",
  description: "200 when the database answers and the data dir is writable; 503 otherwise.",
  responses: {
    200: { description: "Healthy or degraded", content: { "application/json": { schema: HealthSchema } } },
    503: { description: "Unhealthy", content: { "application/json": { schema: HealthSchema } } },
  },
});

/** `/health`: every registered check (database, data dir, media tools, watched folders). */
export function healthRoutes(ctx: AppContext): Router {
  const r = newRouter();
  r.openapi(route, (c) => {
    const details = ctx.health.run();
    const values = Object.values(details);
    const unhealthy = values.some((v) => v.status === "unhealthy");
    const degraded = values.some((v) => v.status === "degraded");
    const status = unhealthy ? "unhealthy" : degraded ? "degraded" : "healthy";
    c.header("Cache-Control", "no-store");
    return c.json({ status, version: ctx.version, details }, unhealthy ? 503 : 200);
  });
  return r;
}
