import { createRoute } from "@hono/zod-openapi";
import type { AppContext } from "../../context.ts";
import { LoginInput, RefreshInput, SuccessSchema, TokenPairSchema } from "../../domain/auth/auth.schemas.ts";
import { actorOf, type Router } from "../env.ts";
import { errorResponses, type Guards, newRouter, SECURED } from "../router.ts";

const json = <T>(schema: T) => ({ content: { "application/json": { schema } } });

const login = createRoute({
  method: "post",
  path: "/auth/login",
  tags: ["Auth"],
  summary: "Sign in with username and password",
  request: { body: { ...json(LoginInput), required: true } },
  responses: {
    200: { description: "Token pair", ...json(TokenPairSchema) },
    ...errorResponses(400, 401, 403, 429),
  },
});

const refresh = createRoute({
  method: "post",
  path: "/auth/refresh",
  tags: ["Auth"],
  summary: "Exchange a refresh token for a new pair (single use)",
  request: { body: { ...json(RefreshInput), required: true } },
  responses: {
    200: { description: "Token pair", ...json(TokenPairSchema) },
    ...errorResponses(400, 401, 429),
  },
});

const logout = createRoute({
  method: "post",
  path: "/auth/logout",
  tags: ["Auth"],
  summary: "Revoke the presented refresh token",
  security: SECURED,
  request: { body: { ...json(RefreshInput), required: true } },
  responses: { 200: { description: "Revoked", ...json(SuccessSchema) }, ...errorResponses(400, 401, 429) },
});

const logoutAll = createRoute({
  method: "post",
  path: "/auth/logout-all",
  tags: ["Auth"],
  summary: "Revoke every refresh token of the caller",
  security: SECURED,
  responses: { 200: { description: "Revoked", ...json(SuccessSchema) }, ...errorResponses(401, 429) },
});

/** Sessions: login, refresh, logout, logout-all. */
export function authRoutes(ctx: AppContext, guards: Guards): Router {
  const r = newRouter();
  const auth = ctx.services.auth;
  r.use("/auth/login", guards.login);
  r.use("/auth/refresh", guards.authEndpoints);
  r.use("/auth/logout", guards.authEndpoints, guards.auth());
  r.use("/auth/logout-all", guards.authEndpoints, guards.auth());

  r.openapi(login, async (c) => {
    const { username, password } = c.req.valid("json");
    return c.json(await auth.login(username, password), 200);
  });
  r.openapi(refresh, async (c) => c.json(await auth.refresh(c.req.valid("json").refresh_token), 200));
  r.openapi(logout, async (c) => {
    await auth.logout(actorOf(c), c.req.valid("json").refresh_token);
    return c.json({ success: true }, 200);
  });
  r.openapi(logoutAll, (c) => {
    auth.revokeAllFor(actorOf(c).userId);
    return c.json({ success: true }, 200);
  });
  return r;
}
