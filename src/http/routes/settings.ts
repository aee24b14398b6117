import { createRoute } from "@hono/zod-openapi";
import type { AppContext } from "../../context.ts";
import { SettingsSchema, SettingsUpdateInput } from "../../domain/settings/settings.schemas.ts";
import { actorOf, type Router } from "../env.ts";
import { body, errorResponses, type Guards, json, newRouter, SECURED } from "../router.ts";

const settingsRoute = (
  method: "get" | "put",
  path: "/settings/user" | "/settings/app",
  summary: string,
  guard: ReturnType<Guards["auth"]>,
) =>
  createRoute({
    method,
    path,
    tags: ["Settings"],
    summary,
    security: SECURED,
    middleware: [guard] as const,
    ...(method === "put" ? { request: body(SettingsUpdateInput) } : {}),
    responses: {
      200: { description: "All settings (after the update)", ...json(SettingsSchema) },
      ...errorResponses(...(method === "put" ? [400, 401, 403, 413, 429] : [401, 403, 429])),
    },
  });

/**
 * `/settings/user` (the caller's own preferences, any authenticated user) and
 * `/settings/app` (the organization's: read with org:read, change with
 * org:admin). PUT merges the given keys; a null value removes a key.
 */
export function settingsRoutes(ctx: AppContext, guards: Guards): Router {
  const r = newRouter();
  const svc = ctx.services.settings;
  const authed = guards.auth();

  r.openapi(settingsRoute("get", "/settings/user", "The caller's settings", authed), (c) =>
    c.json(svc.getUser(actorOf(c)), 200),
  );
  r.openapi(
    settingsRoute("put", "/settings/user", "Merge keys into the caller's settings (null removes)", authed),
    async (c) => c.json(svc.updateUser(actorOf(c), await c.req.json()), 200),
  );
  r.openapi(
    settingsRoute("get", "/settings/app", "The organization's application settings", guards.auth("org:read")),
    (c) => c.json(svc.getApp(actorOf(c)), 200),
  );
  r.openapi(
    settingsRoute(
      "put",
      "/settings/app",
      "Merge keys into the application settings (org:admin; null removes)",
      guards.auth("org:admin"),
    ),
    async (c) => c.json(svc.updateApp(actorOf(c), await c.req.json()), 200),
  );
  return r;
}
