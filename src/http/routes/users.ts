import { createRoute } from "@hono/zod-openapi";
import type { AppContext } from "../../context.ts";
import { IdParam } from "../../domain/ids.schemas.ts";
import { PageQuery } from "../../domain/page.schemas.ts";
import {
  CreateUserInput,
  ResetPasswordInput,
  UpdateUserInput,
  UserDetailSchema,
  UserListSchema,
} from "../../domain/users/users.schemas.ts";
import { actorOf, type Router } from "../env.ts";
import { body, errorResponses, type Guards, json, newRouter, SECURED, SuccessSchema } from "../router.ts";

const DEACTIVATE =
  "Deactivated users cannot sign in; their access tokens, refresh tokens and API keys stop working at once.";

/** Builds a route with the tag and security of every user route. */
function userRoute<const R extends Parameters<typeof createRoute>[0]>(r: R) {
  return createRoute({ tags: ["Users"], security: SECURED, ...r });
}

const errs = (...s: number[]) => errorResponses(401, 403, 429, ...s);

const create = userRoute({
  method: "post",
  path: "/users",
  summary: "Create a user in the caller's organization (role: name or id, default Member)",
  request: body(CreateUserInput),
  responses: { 201: { description: "Created", ...json(UserDetailSchema) }, ...errs(400, 404, 409) },
});

const list = userRoute({
  method: "get",
  path: "/users",
  summary: "Users of the caller's organization",
  request: { query: PageQuery },
  responses: { 200: { description: "Users", ...json(UserListSchema) }, ...errs(400) },
});

const get = userRoute({
  method: "get",
  path: "/users/{id}",
  summary: "One user",
  request: { params: IdParam },
  responses: { 200: { description: "User", ...json(UserDetailSchema) }, ...errs(404) },
});

const update = userRoute({
  method: "put",
  path: "/users/{id}",
  summary: "Change display name, email, active flag or role",
  description: DEACTIVATE,
  request: { params: IdParam, ...body(UpdateUserInput) },
  responses: { 200: { description: "User", ...json(UserDetailSchema) }, ...errs(400, 404, 409) },
});

const remove = userRoute({
  method: "delete",
  path: "/users/{id}",
  summary: "Deactivate a user (the record is kept, like POST /users/{id}/deactivate)",
  description: DEACTIVATE,
  request: { params: IdParam },
  responses: { 200: { description: "Deactivated", ...json(SuccessSchema) }, ...errs(400, 404, 409) },
});

const deactivate = userRoute({
  method: "post",
  path: "/users/{id}/deactivate",
  summary: "Deactivate a user",
  description: DEACTIVATE,
  request: { params: IdParam },
  responses: { 200: { description: "Deactivated user", ...json(UserDetailSchema) }, ...errs(400, 404, 409) },
});

const resetPassword = userRoute({
  method: "post",
  path: "/users/{id}/reset-password",
  summary: "Set another user's password; they must change it at next sign-in; their sessions end",
  description:
    "Their API keys are revoked too unless revoke_api_keys is false. One's own password cannot be reset (400): change it with the current one, PUT /auth/password.",
  request: { params: IdParam, ...body(ResetPasswordInput) },
  responses: { 200: { description: "Done", ...json(SuccessSchema) }, ...errs(400, 404) },
});

/** User management under /users for organization admins: every route needs `user:manage` in the caller's organization. */
export function usersRoutes(ctx: AppContext, guards: Guards): Router {
  const r = newRouter();
  const users = ctx.services.users;
  const auth = guards.auth("user:manage");
  r.openapi({ ...create, middleware: [auth] }, async (c) =>
    c.json(await users.create(actorOf(c), c.req.valid("json")), 201),
  );
  r.openapi({ ...list, middleware: [auth] }, (c) =>
    c.json(users.list(actorOf(c), c.req.valid("query")), 200),
  );
  r.openapi({ ...get, middleware: [auth] }, (c) =>
    c.json(users.get(actorOf(c), c.req.valid("param").id), 200),
  );
  r.openapi({ ...update, middleware: [auth] }, (c) =>
    c.json(users.update(actorOf(c), c.req.valid("param").id, c.req.valid("json")), 200),
  );
  r.openapi({ ...remove, middleware: [auth] }, (c) => {
    users.deactivate(actorOf(c), c.req.valid("param").id);
    return c.json({ success: true }, 200);
  });
  r.openapi({ ...deactivate, middleware: [auth] }, (c) =>
    c.json(users.deactivate(actorOf(c), c.req.valid("param").id), 200),
  );
  r.openapi({ ...resetPassword, middleware: [auth] }, async (c) => {
    await users.resetPassword(actorOf(c), c.req.valid("param").id, c.req.valid("json"));
    return c.json({ success: true }, 200);
  });
  return r;
}
