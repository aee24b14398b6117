import { z } from "@hono/zod-openapi";
import { isId } from "../../platform/ids.ts";
import { FileSchema } from "../files/files.schemas.ts";
import type { NameLetters } from "./fold.ts";
import { EXACT_TOTAL_BOUND, SEARCH_DEFAULT_LIMIT, SEARCH_MAX_LIMIT } from "./search.limits.ts";

export const SORT_FIELDS = ["name", "size", "created_at", "updated_at", "relevance"] as const;
export const FILE_TYPES = ["file", "directory", "symlink"] as const;

const ISO =
  /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})?)?$/i;

/**
 * Parses an ISO 8601 date or date-time into a UTC instant. Date-times without
 * an offset are UTC. Impossible calendar dates (2024-02-30) are refused
 * rather than rolled over. Returns undefined when invalid.
 */
export function parseIsoDate(text: string): { at: Date; dateOnly: boolean } | undefined {
  const m = ISO.exec(text.trim());
  if (!m) return undefined;
  const [, y, mo, d, h, mi, s, zone] = m;
  if (Number(h ?? 0) > 23 || Number(mi ?? 0) > 59 || Number(s ?? 0) > 59) return undefined;
  const day = new Date(Date.UTC(Number(y), Number(mo) - 1, Number(d)));
  if (day.getUTCMonth() !== Number(mo) - 1 || day.getUTCDate() !== Number(d)) return undefined;
  const normalized = h === undefined ? `${y}-${mo}-${d}T00:00:00Z` : text.trim() + (zone ? "" : "Z");
  const at = new Date(normalized.replace(" ", "T"));
  return Number.isNaN(at.getTime()) ? undefined : { at, dateOnly: h === undefined };
}

/** Query strings arrive as text; "" means "not given". */
const blankToUndefined = (v: unknown) => (v === "" || v === null ? undefined : v);
const optionalInt = (min: number, max: number) =>
  z.preprocess(blankToUndefined, z.coerce.number().int().min(min).max(max).optional());

/** Page sizes: 0 means "the default", as in the RPC SearchQuery. */
const pageSize = z.preprocess(
  (v) => (v === 0 || v === "0" ? undefined : v),
  optionalInt(1, SEARCH_MAX_LIMIT),
);

const dateParam = (edge: "start" | "end") =>
  z.preprocess(
    blankToUndefined,
    z
      .string()
      .max(64)
      .transform((v, ctx) => {
        const parsed = parseIsoDate(v);
        if (!parsed) {
          ctx.addIssue({ code: "custom", message: `invalid ISO 8601 date ${JSON.stringify(v)}` });
          return z.NEVER;
        }
        // A bare end date includes that whole day.
        const at =
          edge === "end" && parsed.dateOnly ? new Date(parsed.at.getTime() + 86_400_000 - 1) : parsed.at;
        return at.toISOString();
      })
      .optional(),
  );

const tagIds = z.preprocess(
  (v) => {
    const list = typeof v === "string" ? v.split(",") : v;
    return Array.isArray(list) ? list.map((s) => String(s).trim()).filter(Boolean) : blankToUndefined(v);
  },
  z
    .array(z.string().refine(isId, { message: "invalid tag id" }))
    .max(50)
    .optional(),
);

/**
 * A search request, from REST query strings or an RPC SearchQuery: the one
 * validation of both. `q` (alias `query`) is the text; `type` (alias
 * `file_type`); `page`/`page_size` are an alternative to `limit`/`offset`.
 */
export const SearchInputSchema = z
  .object({
    q: z.preprocess(blankToUndefined, z.string().max(500).optional()),
    query: z.preprocess(blankToUndefined, z.string().max(500).optional()),
    path: z.preprocess(blankToUndefined, z.string().max(4096).optional()),
    type: z.preprocess(blankToUndefined, z.enum(FILE_TYPES).optional()),
    file_type: z.preprocess(blankToUndefined, z.enum(FILE_TYPES).optional()),
    tags: tagIds,
    min_size: optionalInt(0, Number.MAX_SAFE_INTEGER),
    max_size: optionalInt(0, Number.MAX_SAFE_INTEGER),
    start_date: dateParam("start"),
    end_date: dateParam("end"),
    limit: pageSize,
    offset: optionalInt(0, Number.MAX_SAFE_INTEGER),
    page: optionalInt(1, 1_000_000_000),
    page_size: pageSize,
    sort_by: z.preprocess(blankToUndefined, z.enum(SORT_FIELDS).default("name")),
    sort_order: z.preprocess(
      (v) => (typeof v === "string" ? blankToUndefined(v.toLowerCase()) : v),
      z.enum(["asc", "desc"]).default("asc"),
    ),
  })
  .superRefine((v, ctx) => {
    if (v.min_size !== undefined && v.max_size !== undefined && v.min_size > v.max_size) {
      ctx.addIssue({ code: "custom", path: ["min_size"], message: "min_size is larger than max_size" });
    }
    if (v.start_date && v.end_date && v.start_date > v.end_date) {
      ctx.addIssue({ code: "custom", path: ["start_date"], message: "start_date is after end_date" });
    }
  });

/** A validated, normalized search: what the query builder takes. */
/** A search text split into terms (search.query.ts splitTerms). */
export interface Terms {
  /**
   * FTS5 expressions every match satisfies in its own row (its name, or a
   * directory's path): a quoted term, or a short term's trigrams OR-ed.
   */
  fts: string[];
  /**
   * Expressions also found in some directory's path: a row satisfies one in
   * its own row or through the folder holding it (files index only their
   * names; migration 0011). Set by the repository, which asks the index.
   */
  viaFolders: string[];
  /** Short terms, as typed (NFC), that the index did not answer: matched by a scan. */
  short: string[];
  /** True when a term cannot occur in any row (a short term no indexed trigram begins with). */
  none: boolean;
}

export interface SearchSpec {
  text: string;
  /** Normalized path prefix ("/a/b", no trailing slash) or undefined for the whole tree. */
  path?: string;
  type?: (typeof FILE_TYPES)[number];
  tagIds: string[];
  minSize?: number;
  maxSize?: number;
  /** ISO instants, inclusive. */
  startDate?: string;
  endDate?: string;
  limit: number;
  offset: number;
  sortBy: (typeof SORT_FIELDS)[number];
  sortOrder: "asc" | "desc";
  /** The text's terms as resolved against the index (search.repo.ts); split without it when absent. */
  terms?: Terms;
  /**
   * What the organization's names hold (migration 0024) that tests of terms
   * in SQL must cover. Set by the repository; absent, they cover all.
   */
  letters?: NameLetters;
}

/** Validates raw input (400 ERR_VALIDATION via the caller) and resolves aliases and paging. */
export function toSearchSpec(v: z.output<typeof SearchInputSchema>): SearchSpec {
  const limit = v.page_size ?? v.limit ?? SEARCH_DEFAULT_LIMIT;
  const offset = v.page !== undefined ? (v.page - 1) * limit : (v.offset ?? 0);
  return {
    // Control characters never occur in names; as separators they cannot reach FTS5 (NUL breaks it).
    text: (v.q ?? v.query ?? "")
      // biome-ignore lint/suspicious/noControlCharactersInRegex: matching them is the point
      .replace(/[\u0000-\u001f\u007f]/g, " ")
      .normalize("NFC")
      .trim(),
    path: normalizePathPrefix(v.path),
    type: v.type ?? v.file_type,
    tagIds: [...new Set(v.tags ?? [])],
    minSize: v.min_size,
    maxSize: v.max_size,
    startDate: v.start_date,
    endDate: v.end_date,
    limit,
    offset,
    sortBy: v.sort_by,
    sortOrder: v.sort_order,
  };
}

/** "/Photos/", "Photos" and "/Photos" all mean the folder /Photos; "/" means everything. */
function normalizePathPrefix(path: string | undefined): string | undefined {
  if (path === undefined) return undefined;
  const trimmed = `/${path.trim()}`.replace(/\/{2,}/g, "/").replace(/\/+$/, "");
  return trimmed === "" ? undefined : trimmed;
}

/** One page of search results. */
export const SearchResultSchema = z
  .object({
    files: z.array(FileSchema),
    total: z.number().int(),
    page: z.number().int(),
    page_size: z.number().int(),
    total_pages: z.number().int(),
    total_is_estimate: z.boolean().openapi({
      description:
        "True when `total` (and `total_pages`) is estimated from a sample of the library, which happens only " +
        `when the estimate is above ${EXACT_TOTAL_BOUND} matches; false when \`total\` is exact.`,
    }),
  })
  .openapi("SearchResult");
