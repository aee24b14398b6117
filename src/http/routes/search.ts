import { createRoute, z } from "@hono/zod-openapi";
import type { AppContext } from "../../context.ts";
import { SEARCH_MAX_LIMIT } from "../../domain/search/search.limits.ts";
import { SearchResultSchema, SORT_FIELDS } from "../../domain/search/search.schemas.ts";
import { actorOf, type Router } from "../env.ts";
import { errorResponses, type Guards, json, newRouter, SECURED } from "../router.ts";

const text = (description: string, example?: string) =>
  z
    .string()
    .optional()
    .openapi({ description, ...(example ? { example } : {}) });

/** Documents the parameters; the search service validates them (one rule set for REST and RPC). */
const SearchParams = z.object({
  q: text("Text matched anywhere in names and paths; every word must occur (case- and accent-insensitive)"),
  path: text("Only files at or under this directory path", "/Photos"),
  type: text("file, directory or symlink"),
  tags: text("Comma-separated tag ids; a file must carry all of them"),
  min_size: text("Smallest size in bytes"),
  max_size: text("Largest size in bytes"),
  start_date: text("Created at or after (ISO 8601; without offset = UTC)", "2024-01-01"),
  end_date: text("Created at or before (ISO 8601; a bare date includes that day)", "2024-12-31"),
  limit: text(`Results per page, 1-${SEARCH_MAX_LIMIT} (default 50; 0 = default)`),
  offset: text("Results to skip (default 0)"),
  page: text("1-based page; with page_size, an alternative to limit/offset"),
  page_size: text("Results per page when paging by page"),
  sort_by: text(
    `${SORT_FIELDS.join(", ")} (default name; relevance = name matches first, always best first)`,
  ),
  sort_order: text("asc (default) or desc"),
});

const search = createRoute({
  method: "get",
  path: "/search",
  tags: ["Search"],
  summary: "Search files and directories by name or path fragment, with filters",
  security: SECURED,
  request: { query: SearchParams },
  responses: {
    200: {
      description: "One page of results",
      ...json(SearchResultSchema),
    },
    ...errorResponses(400, 401, 403, 429, 503),
  },
});

/** GET /search (needs file:read). */
export function searchRoutes(ctx: AppContext, guards: Guards): Router {
  const r = newRouter();
  r.use("/search", guards.auth("file:read"));
  r.openapi(search, async (c) => {
    return c.json(
      await ctx.services.search.search(actorOf(c), c.req.valid("query"), "rest", c.req.raw.signal),
      200,
    );
  });
  return r;
}
