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
import { body, errorResponses, type Guards, json, newRouter, ok, SECURED, SuccessSchema } from "../router.ts";

const DEACTIVATE =
  "Deactivated users cannot sign in; their access tokens, refresh tokens and API keys stop working at once.";

/** User-management routes; every one needs `user:manage` in the caller's organization. */
function userRoutes(guard: ReturnType<Guards["auth"]>) {
  const common = { tags: ["Users"], security: SECURED, middleware: guard };
  const errs = (...s: number[]) => errorResponses(401, 403, 429, ...s);
  return {
    create: createRoute({
      ...common,
      method: "post",
      path: "/users",
      summary: "Create a user in the caller's organization (role: name or id, default Member)",
      request: body(CreateUserInput),
      responses: { 201: { description: "Created", ...json(UserDetailSchema) }, ...errs(400, 404, 409) },
    }),
    list: createRoute({
      ...common,
      method: "get",
      path: "/users",
      summary: "Users of the caller's organization",
      request: { query: PageQuery },
      responses: { ...ok("Users", UserListSchema), ...errs(400) },
    }),
    get: createRoute({
      ...common,
      method: "get",
      path: "/users/{id}",
      summary: "One user",
      request: { params: IdParam },
      responses: { ...ok("User", UserDetailSchema), ...errs(404) },
    }),
    update: createRoute({
      ...common,
      method: "put",
      path: "/users/{id}",
      summary: "Change display name, email, active flag or role",
      description: DEACTIVATE,
      request: { params: IdParam, ...body(UpdateUserInput) },
      responses: { ...ok("User", UserDetailSchema), ...errs(400, 404, 409) },
    }),
    remove: createRoute({
      ...common,
      method: "delete",
      path: "/users/{id}",
      summary: "Deactivate a user (the record is kept, like POST /users/{id}/deactivate)",
      description: DEACTIVATE,
      request: { params: IdParam },
      responses: { ...ok("Deactivated", SuccessSchema), ...errs(400, 404, 409) },
    }),
    deactivate: createRoute({
      ...common,
      method: "post",
      path: "/users/{id}/deactivate",
      summary: "Deactivate a user",
      description: DEACTIVATE,
      request: { params: IdParam },
      responses: { ...ok("Deactivated user", UserDetailSchema), ...errs(400, 404, 409) },
    }),
    resetPassword: createRoute({
      ...common,
      method: "post",
      path: "/users/{id}/reset-password",
      summary: "Set a user's password; they must change it at next sign-in; their sessions end",
      request: { params: IdParam, ...body(ResetPasswordInput) },
      responses: { ...ok("Done", SuccessSchema), ...errs(400, 404) },
    }),
  };
}

/** User management under /users for organization admins. */
export function usersRoutes(ctx: AppContext, guards: Guards): Router {
  const r = newRouter();
  const users = ctx.services.users;
  const rt = userRoutes(guards.auth("user:manage"));
  r.openapi(rt.create, async (c) => c.json(await users.create(actorOf(c), c.req.valid("json")), 201));
  r.openapi(rt.list, (c) => c.json(users.list(actorOf(c), c.req.valid("query")), 200));
  r.openapi(rt.get, (c) => c.json(users.get(actorOf(c), c.req.valid("param").id), 200));
  r.openapi(rt.update, (c) =>
    c.json(users.update(actorOf(c), c.req.valid("param").id, c.req.valid("json")), 200),
  );
  r.openapi(rt.remove, (c) => {
    users.deactivate(actorOf(c), c.req.valid("param").id);
    return c.json({ success: true }, 200);
  });
  r.openapi(rt.deactivate, (c) => c.json(users.deactivate(actorOf(c), c.req.valid("param").id), 200));
  r.openapi(rt.resetPassword, async (c) => {
    await users.resetPassword(actorOf(c), c.req.valid("param").id, c.req.valid("json"));
    return c.json({ success: true }, 200);
  });
  return r;
}
