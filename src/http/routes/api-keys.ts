import { createRoute } from "@hono/zod-openapi";
import type { AppContext } from "../../context.ts";
import {
  ApiKeyListSchema,
  CreateApiKeyInput,
  CreatedApiKeySchema,
} from "../../domain/apikeys/apikeys.schemas.ts";
import { IdParam } from "../../domain/ids.schemas.ts";
import { actorOf, type Router } from "../env.ts";
import { body, errorResponses, type Guards, json, newRouter, SECURED, SuccessSchema } from "../router.ts";

/** Builds a route with the tag and security of every API-key route. */
function apiKeyRoute<const R extends Parameters<typeof createRoute>[0]>(r: R) {
  return createRoute({ tags: ["API keys"], security: SECURED, ...r });
}

/** The three API-key routes under `base` (`/auth/api-keys` and its variant `/api-keys`). */
function routesAt(base: "/auth/api-keys" | "/api-keys") {
  return {
    create: apiKeyRoute({
      method: "post",
      path: base,
      summary: "Create an API key (the secret is returned only now)",
      description:
        "Permissions must be a subset of the caller's current permissions (a key cannot create a wider " +
        "key). At most auth.max_api_keys_per_user live keys (409 ERR_LIMIT_REACHED).",
      request: body(CreateApiKeyInput),
      responses: {
        201: { description: "Created; `key` is shown once", ...json(CreatedApiKeySchema) },
        ...errorResponses(400, 401, 403, 404, 409, 429),
      },
    }),
    list: apiKeyRoute({
      method: "get",
      path: base,
      summary: "The caller's API keys (without secrets), with last_used_at",
      responses: {
        200: { description: "Keys", ...json(ApiKeyListSchema) },
        ...errorResponses(401, 403, 429),
      },
    }),
    revoke: apiKeyRoute({
      method: "delete",
      path: `${base}/{id}`,
      summary: "Revoke an API key; it stops working on the next request",
      request: { params: IdParam },
      responses: {
        200: { description: "Revoked", ...json(SuccessSchema) },
        ...errorResponses(401, 403, 404, 429),
      },
    }),
  };
}

/** API keys of the caller, served at both `/auth/api-keys` and `/api-keys`. */
export function apiKeysRoutes(ctx: AppContext, guards: Guards): Router {
  const r = newRouter();
  const keys = ctx.services.apiKeys;
  const auth = guards.auth();
  for (const base of ["/auth/api-keys", "/api-keys"] as const) {
    const { create, list, revoke } = routesAt(base);
    r.openapi({ ...create, middleware: [auth] }, (c) =>
      c.json(keys.create(actorOf(c), c.req.valid("json")), 201),
    );
    r.openapi({ ...list, middleware: [auth] }, (c) => c.json(keys.list(actorOf(c)), 200));
    r.openapi({ ...revoke, middleware: [auth] }, (c) => {
      keys.revoke(actorOf(c), c.req.valid("param").id);
      return c.json({ success: true }, 200);
    });
  }
  return r;
}
