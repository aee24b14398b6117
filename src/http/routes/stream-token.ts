import { createRoute, z } from "@hono/zod-openapi";
import type { MiddlewareHandler } from "hono";
import type { AppContext } from "../../context.ts";
import type { Actor } from "../../domain/actor.ts";
import { createStreamTokens, type StreamTokens } from "../../domain/auth/stream-tokens.ts";
import { createFilesRepo } from "../../domain/files/files.repo.ts";
import { AppError } from "../../errors.ts";
import { loadSigningKeys, type SigningKeys } from "../../platform/keys.ts";
import { actorOf, type Env, type Router } from "../env.ts";
import { errorResponses, type Guards, newRouter, SECURED } from "../router.ts";

const StreamTokenSchema = z
  .object({
    token: z
      .string()
      .openapi({ description: "Pass as `?st=` to /files/{id}/stream or /files/{id}/download" }),
    expires_at: z.string().openapi({ example: "2026-01-01T06:00:00.000Z" }),
  })
  .openapi("StreamToken");

const issueRoute = createRoute({
  method: "post",
  path: "/files/{id}/stream-token",
  tags: ["Files"],
  summary: "A short-lived token that lets a media element or link read this one file",
  description:
    "Browsers cannot send an Authorization header from `<video src>` or `<a download>`. The token (about 6 h) " +
    "is accepted only as the `st` query parameter of GET /files/{id}/stream and GET /files/{id}/download " +
    "of the same file, and nowhere else.",
  security: SECURED,
  request: { params: z.object({ id: z.string().min(1).max(64) }) },
  responses: {
    200: { description: "Token", content: { "application/json": { schema: StreamTokenSchema } } },
    ...errorResponses(401, 403, 404, 429),
  },
});

const perContext = new WeakMap<AppContext, StreamTokens>();

/** The stream-token service of a server, built on first use with the server's signing keys. */
function streamTokensOf(ctx: AppContext): StreamTokens {
  let tokens = perContext.get(ctx);
  if (!tokens) {
    let keys: Promise<SigningKeys> | undefined;
    const load = () =>
      (keys ??= loadSigningKeys({
        privateKeyFile: ctx.cfg.auth.private_key_file,
        publicKeyFile: ctx.cfg.auth.public_key_file,
        dataDir: ctx.dataDir,
      }));
    tokens = createStreamTokens({ files: createFilesRepo(ctx.db), keys: load });
    perContext.set(ctx, tokens);
  }
  return tokens;
}

/** POST /files/:id/stream-token. */
export function streamTokenRoutes(ctx: AppContext, guards: Guards): Router {
  const r = newRouter();
  r.use("/files/:id/stream-token", guards.auth("file:read"));
  r.openapi(issueRoute, async (c) => {
    const { id } = c.req.valid("param");
    return c.json(await streamTokensOf(ctx).issue(actorOf(c), id), 200);
  });
  return r;
}

/**
 * Authentication for GET /files/:id/stream and /files/:id/download: with a
 * `st` query parameter, the stream token must be valid for that very `:id`
 * and the caller becomes a read-only actor (`file:read`) of the token's user;
 * without one, `fallback` (the usual guard) runs. Only those two routes use it.
 */
export function streamTokenAuth(ctx: AppContext, fallback: MiddlewareHandler<Env>): MiddlewareHandler<Env> {
  return async function streamTokenAuthMiddleware(c, next) {
    const st = c.req.query("st");
    if (st === undefined) return fallback(c, next);
    const grant = await streamTokensOf(ctx).verify(st, c.req.param("id") ?? "");
    const user = ctx.services.usersRepo.byId(grant.userId);
    const changed = user?.password_changed_at ? Date.parse(user.password_changed_at) : 0;
    if (
      !user?.is_active ||
      user.organization_id !== grant.organizationId ||
      changed > grant.issuedAt * 1000 + 999
    ) {
      throw new AppError("UNAUTHENTICATED", "invalid stream token");
    }
    const actor: Actor = {
      userId: user.id,
      username: user.username,
      organizationId: user.organization_id,
      permissions: ["file:read"],
      isInstanceAdmin: false,
      via: "jwt",
    };
    c.set("actor", actor);
    await next();
  };
}
