import type { Statement } from "better-sqlite3";
import { and, eq, inArray } from "drizzle-orm";
import type { Db } from "../../db/client.ts";
import { files } from "../../db/schema.ts";
import type { FileRow } from "../files/files.repo.ts";
import { countQuery, pageQuery, type Sql } from "./search.query.ts";
import type { SearchSpec } from "./search.schemas.ts";

/** Prepared statements kept per SQL text; a search has few distinct shapes. */
const STATEMENT_CACHE_SIZE = 256;

/** The search queries (SQL built by search.query.ts), with their prepared statements cached. */
export function createSearchRepo(db: Db) {
  const sqlite = db.$client;
  const statements = new Map<string, Statement>();
  const prepared = (q: Sql): Statement => {
    let stmt = statements.get(q.sql);
    if (!stmt) {
      if (statements.size >= STATEMENT_CACHE_SIZE) statements.delete(statements.keys().next().value!);
      stmt = sqlite.prepare(q.sql);
      statements.set(q.sql, stmt);
    }
    return stmt;
  };

  return {
    /** Number of live rows of the organization matching the search. */
    count(organizationId: string, spec: SearchSpec): number {
      const q = countQuery(organizationId, spec);
      return (prepared(q).get(...q.params) as { n: number }).n;
    },

    /**
     * Ids of one window of matches, in the search's order, and the total
     * number of matches, counted in the same pass (a window function) so the
     * matches are read once. A window past the end falls back to a count.
     */
    page(organizationId: string, spec: SearchSpec, limit: number, offset: number) {
      const q = pageQuery(organizationId, spec, limit, offset);
      const rows = prepared(q).all(...q.params) as { id: string; total: number }[];
      const total = rows[0]?.total ?? (offset > 0 ? this.count(organizationId, spec) : 0);
      return { ids: rows.map((r) => r.id), total };
    },

    /** The rows of `ids` (of the organization), in the order of `ids`. */
    rowsInOrder(organizationId: string, ids: readonly string[]): FileRow[] {
      if (ids.length === 0) return [];
      const rows = db
        .select()
        .from(files)
        .where(and(eq(files.organization_id, organizationId), inArray(files.id, ids as string[])))
        .all();
      const byId = new Map(rows.map((r) => [r.id, r]));
      return ids.flatMap((id) => byId.get(id) ?? []);
    },
  };
}

export type SearchRepo = ReturnType<typeof createSearchRepo>;
