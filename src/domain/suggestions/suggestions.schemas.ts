import { z } from "@hono/zod-openapi";

export const PathSuggestionsInput = z.object({
  prefix: z.string().min(1).max(4096).openapi({
    description: "Absolute path typed so far; the last segment is matched as a prefix",
    example: "/mnt/me",
  }),
  limit: z.coerce.number().int().min(1).max(50).default(10),
});

export const PathSuggestionsSchema = z
  .object({
    suggestions: z.array(z.string()).openapi({ description: "Absolute directory paths, alphabetical" }),
  })
  .openapi("PathSuggestions");
