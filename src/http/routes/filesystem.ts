import { createRoute } from "@hono/zod-openapi";
import type { AppContext } from "../../context.ts";
import { PathSuggestionsInput, PathSuggestionsSchema } from "../../domain/suggestions/suggestions.schemas.ts";
import { actorOf, type Router } from "../env.ts";
import { errorResponses, type Guards, json, newRouter, SECURED } from "../router.ts";

const suggestions = createRoute({
  method: "get",
  path: "/filesystem/path-suggestions",
  tags: ["Filesystem"],
  summary: "Host directories starting with the typed prefix (for choosing a watched folder)",
  description:
    "Only directories, alphabetical, at most `limit` (1-50, default 10). The prefix is resolved through " +
    "symlinks, `.` and `//` before system directories (/etc, /root, /sys, /proc, /dev, /boot) are refused " +
    "with 403 ERR_FORBIDDEN_PATH; a prefix containing `..` is 400; a missing directory 404; 5 s timeout (500 ERR_TIMEOUT). " +
    "Needs org:read.",
  security: SECURED,
  request: { query: PathSuggestionsInput },
  responses: {
    200: {
      description: "Matching directories",
      ...json(PathSuggestionsSchema),
    },
    ...errorResponses(400, 401, 403, 404, 429, 500),
  },
});

/** Host file-system helpers for the admin UI. */
export function filesystemRoutes(ctx: AppContext, guards: Guards): Router {
  const r = newRouter();
  r.use("/filesystem/*", guards.auth());
  r.openapi(suggestions, async (c) =>
    c.json(await ctx.services.suggestions.suggest(actorOf(c), c.req.valid("query")), 200),
  );
  return r;
}
