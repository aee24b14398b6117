import { rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { createRoute, z } from "@hono/zod-openapi";
import { sql } from "drizzle-orm";
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

/** `/health`: database, data dir, and every registered component check. */
export function healthRoutes(ctx: AppContext): Router {
  const r = newRouter();
  r.openapi(route, (c) => {
    const details: Record<string, unknown> = {};
    let unhealthy = false;
    try {
      ctx.db.get(sql`select 1`);
      details.database = { status: "ok" };
    } catch (err) {
      unhealthy = true;
      details.database = { status: "unhealthy", message: (err as Error).message };
    }
    try {
      // A real write: access(W_OK) says yes to root on a read-only or replaced directory.
      const probe = join(ctx.dataDir, `.health-${process.pid}`);
      writeFileSync(probe, "");
      rmSync(probe);
      details.storage = { status: "ok" };
    } catch {
      unhealthy = true;
      details.storage = { status: "unhealthy", message: "data directory is not writable" };
    }
    const checks = ctx.health.run();
    Object.assign(details, checks);
    const values = Object.values(checks);
    unhealthy ||= values.some((v) => v.status === "unhealthy");
    const degraded = values.some((v) => v.status === "degraded");
    const status = unhealthy ? "unhealthy" : degraded ? "degraded" : "healthy";
    c.header("Cache-Control", "no-store");
    return c.json({ status, version: ctx.version, details }, unhealthy ? 503 : 200);
  });
  return r;
}
