import { z } from "@hono/zod-openapi";

/**
 * `limit` (1–`maxLimit`, default 50) and `offset` (default 0) of a list
 * endpoint's query: one definition, each area choosing only its ceiling.
 */
export const pageQuery = (maxLimit: number) =>
  z.object({
    limit: z.coerce.number().int().min(1).max(maxLimit).default(50),
    offset: z.coerce.number().int().min(0).max(Number.MAX_SAFE_INTEGER).default(0),
  });

/** Users and groups: at most 500 a page. */
export const PageQuery = pageQuery(500);
export type Page = z.infer<typeof PageQuery>;
