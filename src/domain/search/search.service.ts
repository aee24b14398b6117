import type { z } from "@hono/zod-openapi";
import type { Db } from "../../db/client.ts";
import type { Metrics } from "../../platform/metrics.ts";
import { type Access, aclCondition } from "../access/access.ts";
import { type Actor, requirePermission } from "../actor.ts";
import { type FileDto, toFileDtos } from "../files/files.dto.ts";
import { parseInput } from "../parse-input.ts";
import { createSearchRepo, DEFAULT_PLAN, type Scope, type SearchPlanOptions } from "./search.repo.ts";
import {
  SearchInputSchema,
  type SearchResultSchema,
  type SearchSpec,
  toSearchSpec,
} from "./search.schemas.ts";

/** One page of search results: the shape of SearchResultSchema, the one source of it (docs/api.md). */
export type SearchResult = z.output<typeof SearchResultSchema>;

/** Which adapter asked, for `attic_search_queries_total{transport}`. */
export type SearchTransport = "rest" | "rpc";

/** Rows fetched per step while streaming. */
const STREAM_BATCH = 200;

/** Validates raw search input (REST query strings or an RPC SearchQuery); 400 ERR_VALIDATION otherwise. */
export function parseSearchInput(input: unknown): SearchSpec {
  return toSearchSpec(parseInput(SearchInputSchema, input ?? {}, "query"));
}

/**
 * Search over the caller's organization's live files and directories (needs
 * file:read). `search` answers one page with its total; `stream` yields the
 * same window lazily, in batches, for RPC SearchStream. Both validate and
 * check permission before returning, so errors surface before any result.
 */
export function createSearchService(deps: {
  db: Db;
  access: Access;
  metrics?: Metrics;
  plan?: Partial<SearchPlanOptions>;
}) {
  const { db, metrics, access } = deps;
  const aclOf = (actor: Actor): Scope => {
    const view = access.view(actor);
    return { acl: aclCondition(view, "f.acl_id"), hidden: view.top >= 1 ? view.unreadable : undefined };
  };
  const repo = createSearchRepo(db, { ...DEFAULT_PLAN, ...deps.plan });

  const records = (organizationId: string, ids: string[]): FileDto[] =>
    toFileDtos(db, repo.rowsInOrder(organizationId, ids));

  const prepare = (actor: Actor, input: unknown, transport: SearchTransport): SearchSpec => {
    requirePermission(actor, "file:read");
    const spec = parseSearchInput(input);
    metrics?.searchQueries.inc({ transport });
    return spec;
  };

  return {
    search(actor: Actor, input: unknown, transport: SearchTransport = "rest"): SearchResult {
      const spec = prepare(actor, input, transport);
      const org = actor.organizationId;
      const { ids, total, estimated } = repo.page(org, spec, spec.limit, spec.offset, aclOf(actor));
      return {
        files: records(org, ids),
        total,
        page: Math.floor(spec.offset / spec.limit) + 1,
        page_size: spec.limit,
        total_pages: Math.ceil(total / spec.limit),
        total_is_estimate: estimated,
      };
    },

    stream(actor: Actor, input: unknown, transport: SearchTransport = "rpc"): Iterable<FileDto> {
      const spec = prepare(actor, input, transport);
      const org = actor.organizationId;
      const acl = aclOf(actor);
      return (function* () {
        for (let done = 0; done < spec.limit; ) {
          const take = Math.min(STREAM_BATCH, spec.limit - done);
          const { ids } = repo.page(org, spec, take, spec.offset + done, acl);
          yield* records(org, ids);
          if (ids.length < take) return;
          done += take;
        }
      })();
    },
  };
}

export type SearchService = ReturnType<typeof createSearchService>;
