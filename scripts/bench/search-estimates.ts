/**
 * How far the search's estimated totals are from the true ones (issue 14,
 * docs/api.md "Search totals"): `node scripts/bench/search-estimates.ts
 * --data DIR [--results bench-results/search-rest.json]`.
 *
 * Reads the shapes the REST search bench (search-rest.ts) answered with
 * `total_is_estimate` true, on the data directory it scanned (`--data`, the
 * same one), and asks the search repository in process for each one twice:
 * as the server plans it (the estimate, the dense plan's sample) and with
 * the dense plan off (the other plans count every match). A total depends
 * on the terms and filters, not on the sort or the page, so each shape is
 * asked once without them. Prints the ratio estimate / exact by the exact
 * total's size, and the furthest shapes. Opens the database read-only: it
 * may run beside a server on the same data.
 */
import { readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import Database from "better-sqlite3";
import { drizzle } from "drizzle-orm/better-sqlite3";
import * as schema from "../../src/db/schema.ts";
import { createSearchRepo, DEFAULT_PLAN } from "../../src/domain/search/search.repo.ts";
import { parseSearchInput } from "../../src/domain/search/search.service.ts";
import { say } from "./lib/report.ts";
import { percentile } from "./lib/stats.ts";

const ROOT = resolve(import.meta.dirname, "../..");
const { values: args } = parseArgs({
  options: {
    data: { type: "string" },
    results: { type: "string", default: join(ROOT, "bench-results/search-rest.json") },
  },
});
if (!args.data) throw new Error("--data DIR: the data directory search-rest.ts scanned");

interface Answer {
  shape: Record<string, string>;
  estimated: boolean;
}
const saved = JSON.parse(readFileSync(args.results, "utf8")) as Record<string, unknown>;
const answers = Object.values(saved)
  .filter((v): v is Answer[] => Array.isArray(v) && typeof v[0]?.shape === "object")
  .flat();
const shapes = new Map<string, Record<string, string>>();
for (const { shape, estimated } of answers) {
  if (!estimated) continue;
  const { sort_by: _s, sort_order: _o, offset: _p, ...rest } = shape;
  shapes.set(JSON.stringify(rest), rest);
}

const sqlite = new Database(join(resolve(args.data), "attic.db"), { readonly: true, fileMustExist: true });
const db = drizzle({ client: sqlite, schema });
const org = (
  sqlite.prepare("SELECT id FROM organizations ORDER BY created_at LIMIT 1").get() as { id: string }
).id;
const planned = createSearchRepo(db, DEFAULT_PLAN);
const counted = createSearchRepo(db, { ...DEFAULT_PLAN, dense: false });

say(`search-estimates: ${shapes.size} shapes answered with an estimate, counted exactly`);
const rows: { shape: Record<string, string>; estimate: number; exact: number }[] = [];
for (const shape of shapes.values()) {
  const spec = parseSearchInput(shape);
  const e = planned.page(org, spec, spec.limit, 0, { hidden: [] });
  const x = counted.page(org, spec, 1, 0, { hidden: [] });
  if (!e.estimated || x.estimated) continue;
  rows.push({ shape, estimate: e.total, exact: x.total });
}

const BANDS = [5_000, 10_000, 20_000, 50_000, 200_000, Number.POSITIVE_INFINITY];
let low = 0;
for (const high of BANDS) {
  const band = rows.filter((r) => r.exact >= low && r.exact < high);
  if (band.length > 0) {
    const ratios = band.map((r) => r.estimate / r.exact).sort((a, b) => a - b);
    const near = band.filter((r) => Math.abs(r.estimate / r.exact - 1) <= 0.25).length;
    console.log(
      `  exact ${low}–${high === Number.POSITIVE_INFINITY ? "" : high}: ${band.length} shapes, estimate / exact ` +
        `min ${ratios[0]!.toFixed(2)} p5 ${percentile(ratios, 5).toFixed(2)} p50 ${percentile(ratios, 50).toFixed(2)} ` +
        `p95 ${percentile(ratios, 95).toFixed(2)} max ${ratios.at(-1)!.toFixed(2)}; within ±25 %: ${Math.round((100 * near) / band.length)} %`,
    );
  }
  low = high;
}
const furthest = [...rows].sort(
  (a, b) => Math.abs(Math.log(b.estimate / b.exact)) - Math.abs(Math.log(a.estimate / a.exact)),
);
console.log("  furthest:");
for (const r of furthest.slice(0, 8))
  console.log(`    ${r.estimate} for ${r.exact}  ${JSON.stringify(r.shape)}`);
