/**
 * Comparing one search plan's pages with the general plan's, for the plan
 * tests (test/unit/search-*.test.ts): every case must give the same rows in
 * the same order and, unless estimated, the same total.
 */
import { expect } from "vitest";
import type { Db } from "../../src/db/client.ts";
import {
  createSearchRepo,
  DEFAULT_PLAN,
  type Scope,
  type SearchPlanOptions,
  type SearchRepo,
} from "../../src/domain/search/search.repo.ts";
import { parseSearchInput } from "../../src/domain/search/search.service.ts";

export interface Comparison {
  /** The plan `a` must have answered with (any, when undefined). */
  plan?: string;
  /** The viewer's folder grants, for both. */
  scope?: Scope;
}

/** Pages of `a` and `b` (the general plan) for each case, compared. */
export function expectSamePages(
  a: SearchRepo,
  b: SearchRepo,
  org: string,
  cases: readonly Record<string, unknown>[],
  { plan, scope }: Comparison = {},
): void {
  for (const i of cases) {
    const spec = parseSearchInput(i);
    const x = a.page(org, spec, spec.limit, spec.offset, scope);
    const y = b.page(org, spec, spec.limit, spec.offset, scope);
    const at = JSON.stringify(i);
    expect(y.plan, at).toBe("general");
    if (plan) expect(x.plan, at).toBe(plan);
    expect(x.ids, at).toEqual(y.ids);
    if (!x.estimated) expect(x.total, at).toBe(y.total);
  }
}

/** The total `repo` gives for one search. */
export function totalOf(
  repo: SearchRepo,
  org: string,
  input: Record<string, unknown>,
  scope?: Scope,
): number {
  const spec = parseSearchInput(input);
  return repo.page(org, spec, spec.limit, spec.offset, scope).total;
}

/** A viewer's folder-grants condition reading the folders whose acl_id is one of `acls` (and the ungoverned ones). */
export const grantsOf = (acls: readonly string[]): Scope => ({
  acl: {
    sql: "(f.acl_id IS NULL OR f.acl_id IN (SELECT value FROM json_each(?)))",
    params: [JSON.stringify(acls)],
  },
});

/** Every plan but the general one off: the plan the others' pages are compared with. */
export const ONLY_GENERAL: SearchPlanOptions = {
  ...DEFAULT_PLAN,
  broad: false,
  dense: false,
  folders: false,
  large: false,
  runs: false,
  sizes: false,
  span: false,
  subtree: false,
};

/** A repository over `db` whose statements' SQL is noted (`ran`) as they are run. */
export function notedRepo(db: Db, options: SearchPlanOptions) {
  const ran: string[] = [];
  const c = db.$client;
  const client = new Proxy(c, {
    get(target, key) {
      if (key !== "prepare") {
        const v = Reflect.get(target, key, target);
        return typeof v === "function" ? v.bind(target) : v;
      }
      return (source: string) => {
        const stmt = target.prepare(source);
        const noted: object = new Proxy(stmt, {
          get(s, k) {
            const v = Reflect.get(s, k, s);
            if (typeof v !== "function") return v;
            return (...args: unknown[]) => {
              if (k === "iterate" || k === "all" || k === "get") ran.push(source);
              const out = v.apply(s, args);
              // raw(), pluck() and the like hand back the statement: keep noting its runs.
              return out === s ? noted : out;
            };
          },
        });
        return noted;
      };
    },
  });
  return { repo: createSearchRepo({ $client: client } as unknown as Db, options), ran };
}
