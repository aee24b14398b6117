import { createRoute } from "@hono/zod-openapi";
import type { AppContext } from "../../context.ts";
import {
  ChangePasswordInput,
  LoginInput,
  PasswordUpdateInput,
  ProfileUpdateInput,
  RefreshInput,
  RegisterInput,
  TokenPairSchema,
} from "../../domain/auth/auth.schemas.ts";
import { ProfileSchema } from "../../domain/users/users.schemas.ts";
import { actorOf, type Router } from "../env.ts";
import { body, errorResponses, type Guards, json, newRouter, SECURED, SuccessSchema } from "../router.ts";

const success = { 200: { description: "Done", ...json(SuccessSchema) } };

const register = createRoute({
  method: "post",
  path: "/auth/register",
  tags: ["Auth"],
  summary: "Create an account and its organization (when auth.registration_enabled)",
  description:
    "Creates the organization `organization_name` (default: one named after the user) with built-in roles, " +
    "makes the user its Admin, and signs them in. Passwords: at least 10 characters, not containing the " +
    "username, not a common password.",
  request: body(RegisterInput),
  responses: {
    201: { description: "Signed in", ...json(TokenPairSchema) },
    ...errorResponses(400, 403, 409, 429),
  },
});

const login = createRoute({
  method: "post",
  path: "/auth/login",
  tags: ["Auth"],
  summary: "Sign in with username and password",
  request: body(LoginInput),
  responses: {
    200: { description: "Token pair", ...json(TokenPairSchema) },
    ...errorResponses(400, 401, 403, 429),
  },
});

const refresh = createRoute({
  method: "post",
  path: "/auth/refresh",
  tags: ["Auth"],
  summary: "Exchange a refresh token for a new pair (single use; reuse revokes the whole family)",
  request: body(RefreshInput),
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
  request: body(RefreshInput),
  responses: { ...success, ...errorResponses(400, 401, 429) },
});

const logoutAll = createRoute({
  method: "post",
  path: "/auth/logout-all",
  tags: ["Auth"],
  summary: "Revoke every refresh token of the caller",
  security: SECURED,
  responses: { ...success, ...errorResponses(401, 429) },
});

const passwordDescription =
  "Revokes every refresh token of the caller; access tokens issued before the change stop working. API keys keep working unless revoke_api_keys is true.";

const changePassword = createRoute({
  method: "post",
  path: "/auth/change-password",
  tags: ["Auth"],
  summary: "Change the caller's password",
  description: passwordDescription,
  security: SECURED,
  request: body(ChangePasswordInput),
  responses: { ...success, ...errorResponses(400, 401, 403, 429) },
});

const putPassword = createRoute({
  method: "put",
  path: "/auth/password",
  tags: ["Auth"],
  summary: "Change the caller's password (variant; old_password or current_password)",
  description: passwordDescription,
  security: SECURED,
  request: body(PasswordUpdateInput),
  responses: { ...success, ...errorResponses(400, 401, 403, 429) },
});

const getProfile = createRoute({
  method: "get",
  path: "/auth/profile",
  tags: ["Auth"],
  summary: "The caller's account, roles and permissions",
  security: SECURED,
  responses: { 200: { description: "Profile", ...json(ProfileSchema) }, ...errorResponses(401, 429) },
});

const putProfile = createRoute({
  method: "put",
  path: "/auth/profile",
  tags: ["Auth"],
  summary: "Change the caller's username, email or display name",
  security: SECURED,
  request: body(ProfileUpdateInput),
  responses: {
    200: { description: "Profile", ...json(ProfileSchema) },
    ...errorResponses(400, 401, 403, 409, 429),
  },
});

/** Sessions and the caller's own account: register, login, refresh, logout, password, profile. */
export function authRoutes(ctx: AppContext, guards: Guards): Router {
  const r = newRouter();
  const { auth, account } = ctx.services;
  // Login and register share one per-IP budget; the other session endpoints have their own.
  r.use("/auth/login", guards.login);
  r.use("/auth/register", guards.login);
  r.use("/auth/refresh", guards.authEndpoints);
  for (const path of ["/auth/logout", "/auth/logout-all", "/auth/change-password", "/auth/password"]) {
    r.use(path, guards.authEndpoints, guards.auth());
  }
  r.use("/auth/profile", guards.auth());

  r.openapi(register, async (c) => c.json(await account.register(c.req.valid("json")), 201));
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
  r.openapi(changePassword, async (c) => {
    await account.changePassword(actorOf(c), c.req.valid("json"));
    return c.json({ success: true }, 200);
  });
  r.openapi(putPassword, async (c) => {
    const { old_password, current_password, ...rest } = c.req.valid("json");
    const current = (current_password ?? old_password)!;
    await account.changePassword(actorOf(c), { current_password: current, ...rest });
    return c.json({ success: true }, 200);
  });
  r.openapi(getProfile, (c) => c.json(account.profile(actorOf(c)), 200));
  r.openapi(putProfile, (c) => c.json(account.updateProfile(actorOf(c), c.req.valid("json")), 200));
  return r;
}
