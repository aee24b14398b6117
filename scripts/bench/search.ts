/**
 * Search benchmark: `node scripts/bench/search.ts [--files 1000000] [--queries 200] [--rebuild] [--wide]`
 * (or `npm run bench -- search`).
 *
 * Builds (once, cached under BENCH_WORK) a SQLite database with Attic's real
 * migrations holding `--files` synthetic tree rows in one organization, then
 * runs a query mix through the search service (the code REST and RPC call)
 * and the same words through `plocate -i` over a plocate-build database of
 * the same paths. Prints p50/p95/p99 of both, the ratio and peak RSS, each
 * query's total ("~estimate (exact)" when Attic answered an estimate:
 * total_is_estimate; the exact count is taken afterwards, untimed),
 * writes bench-results/search.json, and figures for the harness in
 * BENCH_RESULTS_FILE.
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { type Db, openDb } from "../../src/db/client.ts";
import { MIGRATIONS } from "../../src/db/migrations/index.ts";
import { organizations } from "../../src/db/schema.ts";
import { createAccessRepo } from "../../src/domain/access/access.repo.ts";
import { createAccess } from "../../src/domain/access/access.ts";
import type { Actor } from "../../src/domain/actor.ts";
import { createSearchRepo, DEFAULT_PLAN } from "../../src/domain/search/search.repo.ts";
import { createSearchService, parseSearchInput } from "../../src/domain/search/search.service.ts";
import { newId } from "../../src/platform/ids.ts";
import { WORK } from "./lib/attic.ts";
import { peakRssMiB } from "./lib/proc.ts";
import { type Figure, figure, printFigure, say } from "./lib/report.ts";
import { percentile } from "./lib/stats.ts";
import { generateTree } from "./search-names.ts";

const ROOT = resolve(import.meta.dirname, "../..");
const GENERATOR_VERSION = 2;
const ORG = "0190a000-0000-7000-8000-000000000001";

const { values: args } = parseArgs({
  options: {
    files: { type: "string", default: "1000000" },
    queries: { type: "string", default: "200" },
    rebuild: { type: "boolean", default: false },
    wide: { type: "boolean", default: false },
  },
});
const FILES = Number(args.files);
const QUERIES = Number(args.queries);

/** The query mix: name fragments a household types, a few with filters, some very common, some short. */
const MIX: { label: string; q: Record<string, string>; words: string[] }[] = [
  { label: "holiday 2019", q: { q: "holiday 2019" }, words: ["holiday", "2019"] },
  { label: "invoice", q: { q: "invoice" }, words: ["invoice"] },
  { label: "s01e03", q: { q: "s01e03" }, words: ["s01e03"] },
  { label: "IMG_0042", q: { q: "IMG_0042" }, words: ["IMG_0042"] },
  { label: "amelie (accent-folded)", q: { q: "amelie" }, words: ["amélie"] },
  { label: "Budapest", q: { q: "Budapest" }, words: ["Budapest"] },
  { label: "東京", q: { q: "東京" }, words: ["東京"] },
  { label: ".flac", q: { q: ".flac" }, words: [".flac"] },
  { label: "final final", q: { q: "Final FINAL" }, words: ["final final"] },
  { label: "zzz-no-match", q: { q: "zzz-no-match" }, words: ["zzz-no-match"] },
  { label: "wedding 2008", q: { q: "wedding 2008" }, words: ["wedding", "2008"] },
  { label: "breaking bad s03", q: { q: "breaking bad s03" }, words: ["breaking", "bad", "s03"] },
  {
    label: "receipt-2021 by size desc",
    q: { q: "receipt-2021", sort_by: "size", sort_order: "desc" },
    words: ["receipt-2021"],
  },
  { label: "mkv >1GB by size", q: { q: "mkv", min_size: "1000000000", sort_by: "size" }, words: ["mkv"] },
  { label: "jpg (very common)", q: { q: "jpg" }, words: ["jpg"] },
  { label: "2019 in /Photos", q: { q: "2019", path: "/Photos" }, words: ["/Photos/", "2019"] },
  { label: "pink floyd relevance", q: { q: "pink floyd", sort_by: "relevance" }, words: ["pink", "floyd"] },
  { label: "short: 42", q: { q: "42" }, words: ["42"] },
  { label: "short: zo", q: { q: "zo" }, words: ["zo"] },
  { label: "cosmos 2160p", q: { q: "cosmos 2160p" }, words: ["cosmos", "2160p"] },
];

/**
 * `--wide`: a broader set of shapes than MIX, the kind a household's searches
 * and a reviewer's query set reach (every sort, a folder, directories only,
 * sizes, dates, a deep page) over single letters, short and CJK terms,
 * extensions and common words. Not compared with plocate (which has no such
 * filters); reported as the median of 3 runs per shape, p50/p95/p99 over the
 * shapes and the slowest ones.
 */
const WIDE_TERMS = [
  "e",
  "a",
  "é",
  "x",
  "z",
  "1",
  "0",
  "ü",
  "日",
  "猫",
  "🎉",
  "ab",
  "zo",
  "42",
  "日本",
  "東京",
  ".jpg",
  ".mp4",
  "jpg",
  "mkv",
  "the",
  "report",
  "holiday",
  "invoice 2016",
  "café",
  "naive",
  "s01",
  "img",
  "2019",
  "photos",
  "flac",
];
const WIDE_VARIANTS: Record<string, string>[] = [
  {},
  { sort_by: "size", sort_order: "desc" },
  { sort_by: "updated_at", sort_order: "desc" },
  { sort_by: "relevance" },
  { sort_by: "name", sort_order: "desc" },
  { path: "/Photos" },
  { type: "directory" },
  { min_size: "1000000", max_size: "5000000" },
  { start_date: "2020-01-01", end_date: "2020-06-30" },
  { offset: "2000" },
];

const ACTOR: Actor = {
  userId: "bench",
  username: "bench",
  organizationId: ORG,
  permissions: ["*:*"],
  isInstanceAdmin: false,
  via: "jwt",
};

/**
 * Inserts the synthetic tree in big transactions, then builds the FTS index
 * in one pass ('rebuild'): the same index content as indexing each
 * transaction's rows (src/db/search-index.ts) gives, faster to build (its
 * segments are merged, as after an FTS5 'optimize'; see the note in the
 * report).
 */
function build(db: Db, listFile: string): void {
  const now = new Date().toISOString();
  db.insert(organizations).values({ id: ORG, name: "bench", created_at: now, updated_at: now }).run();
  const insert = db.$client.prepare(
    `INSERT INTO files (id, organization_id, parent_id, name, path, type, size, mime_type, created_at, updated_at, accessed_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  const ids: string[] = [];
  const paths: string[] = [];
  let batch: (() => void)[] = [];
  const flush = db.$client.transaction(() => {
    for (const f of batch) f();
  });
  const start = performance.now();
  const base = Date.UTC(2005, 0, 1);
  for (const row of generateTree(FILES)) {
    const id = newId();
    const i = ids.push(id) - 1;
    paths.push(row.path);
    const at = new Date(base + ((i * 7919) % 631_152_000) * 1000).toISOString();
    const mime = row.type === "directory" ? "inode/directory" : "application/octet-stream";
    const parent = row.parent >= 0 ? ids[row.parent]! : null;
    batch.push(() => insert.run(id, ORG, parent, row.name, row.path, row.type, row.size, mime, at, at, at));
    if (batch.length === 50_000) {
      flush();
      batch = [];
      say(`  inserted ${ids.length} rows (${((performance.now() - start) / 1000).toFixed(1)} s)`);
    }
  }
  flush();
  db.$client.exec("INSERT INTO files_fts(files_fts) VALUES ('rebuild')");
  say(`  built ${ids.length} rows and their index in ${((performance.now() - start) / 1000).toFixed(1)} s`);
  writeFileSync(listFile, `${paths.join("\n")}\n`);
}

/** Opens the cached database for FILES rows, building it (and the plocate index of the same paths) if needed. */
function prepare(): { db: Db; plocateDb: string; buildSeconds?: number } {
  mkdirSync(WORK, { recursive: true });
  // A new migration may change the index: a database built before it is rebuilt.
  const stem = join(WORK, `search-${FILES}-v${GENERATOR_VERSION}-m${MIGRATIONS.at(-1)!.id}`);
  const dbFile = `${stem}.db`;
  const plocateDb = `${stem}.plocate.db`;
  let buildSeconds: number | undefined;
  if (args.rebuild || !existsSync(dbFile) || !existsSync(plocateDb)) {
    say(`building ${FILES} rows into ${dbFile}`);
    const start = performance.now();
    const tmp = `${stem}.building.db`;
    for (const f of [tmp, `${tmp}-wal`, `${tmp}-shm`]) rmSync(f, { force: true });
    const db = openDb({ file: tmp });
    // A scratch file: no journal (pages are written once, not to the WAL and again at checkpoint).
    db.$client.pragma("journal_mode = OFF");
    db.$client.pragma("synchronous = OFF");
    db.$client.pragma("cache_size = -262144");
    build(db, `${stem}.txt`);
    db.$client.close();
    buildSeconds = (performance.now() - start) / 1000;
    const r = spawnSync("plocate-build", ["-l", "no", "-p", `${stem}.txt`, plocateDb], { encoding: "utf8" });
    if (r.status !== 0) throw new Error(`plocate-build failed: ${r.stderr || r.error}`);
    renameSync(tmp, dbFile);
  }
  // No ANALYZE: Attic does not run it, so the planner works without statistics here too.
  return { db: openDb({ file: dbFile }), plocateDb, buildSeconds };
}

const ms = (start: number) => performance.now() - start;

/** Forgets the peak RSS so far (Linux clear_refs 5), so the figure covers the queries, not the build. */
function resetPeakRss(): void {
  try {
    writeFileSync("/proc/self/clear_refs", "5");
  } catch {}
}

/** The search service answering on a search thread, as the server runs searches (the server's page cache too). */
function threadedSearch(db: Db) {
  return createSearchService({
    db,
    access: createAccess(createAccessRepo(db)),
    threads: {
      file: db.$client.name,
      threads: 1,
      cacheKib: 32 * 1024,
      idleMs: 60_000,
      perCaller: 4,
      maxWaiting: 8,
    },
  });
}

async function runAttic(db: Db) {
  const search = threadedSearch(db);
  for (const m of MIX) await search.search(ACTOR, m.q); // warm the page cache and statement cache
  resetPeakRss();
  const samples: number[] = [];
  const perQuery = MIX.map((m) => ({ label: m.label, total: 0, estimated: false, samples: [] as number[] }));
  for (let i = 0; i < QUERIES; i++) {
    const k = i % MIX.length;
    const start = performance.now();
    const r = await search.search(ACTOR, MIX[k]!.q);
    const t = ms(start);
    samples.push(t);
    perQuery[k]!.samples.push(t);
    perQuery[k]!.total = r.total;
    perQuery[k]!.estimated = r.total_is_estimate;
    if (process.env.BENCH_VERBOSE) say(`  ${MIX[k]!.label}: ${t.toFixed(1)} ms`);
  }
  const peak = peakRssMiB(process.pid);
  // How far each estimate is from the exact count (the exact plans' answer, untimed).
  const exact = createSearchRepo(db, { ...DEFAULT_PLAN, dense: false });
  const withExact = perQuery.map((q, k) => {
    if (!q.estimated) return { ...q, exact: q.total };
    const spec = parseSearchInput(MIX[k]!.q);
    return { ...q, exact: exact.page(ORG, spec, spec.limit, spec.offset).total };
  });
  await search.close();
  return { samples, perQuery: withExact, peakRssMiB: peak };
}

/** The wide set's shapes through the search service on a thread (as runAttic), median of 3 runs each. */
async function runWide(db: Db) {
  const search = threadedSearch(db);
  const shapes: { query: Record<string, string>; ms: number; total: number; estimated: boolean }[] = [];
  for (const q of WIDE_TERMS) {
    for (const variant of WIDE_VARIANTS) {
      const query = { q, ...variant };
      const runs: number[] = [];
      let last = { total: 0, total_is_estimate: false };
      for (let i = 0; i < 3; i++) {
        const start = performance.now();
        last = await search.search(ACTOR, query);
        runs.push(ms(start));
      }
      shapes.push({ query, ms: percentile(runs, 50), total: last.total, estimated: last.total_is_estimate });
    }
  }
  await search.close();
  return shapes.sort((a, b) => b.ms - a.ms);
}

/** Wall time of one plocate process per query (process start included, as a user or a script pays it). */
function runPlocate(plocateDb: string, extra: string[]) {
  const samples: number[] = [];
  const perQuery = MIX.map(() => [] as number[]);
  for (let i = 0; i < QUERIES; i++) {
    const k = i % MIX.length;
    const start = performance.now();
    const r = spawnSync("plocate", ["-i", ...extra, "-d", plocateDb, "--", ...MIX[k]!.words], {
      maxBuffer: 1 << 30,
    });
    const t = ms(start);
    if (r.status !== 0 && r.status !== 1) throw new Error(`plocate failed: ${r.stderr}`);
    samples.push(t);
    perQuery[k]!.push(t);
  }
  return { samples, perQuery };
}

function spawnBaseline(): number {
  const s: number[] = [];
  for (let i = 0; i < 50; i++) {
    const start = performance.now();
    spawnSync("/bin/true");
    s.push(ms(start));
  }
  return percentile(s, 50);
}

const pcts = (s: number[]) => ({ p50: percentile(s, 50), p95: percentile(s, 95), p99: percentile(s, 99) });
const r3 = (x: number) => Math.round(x * 1000) / 1000;

type Attic = Awaited<ReturnType<typeof runAttic>>;
type Plocate = ReturnType<typeof runPlocate>;

/** Figures for the bench harness: Attic's p50/p95/p99 beside plocate's first page. */
function toFigures(attic: Attic, page: Plocate, note: string): Figure[] {
  const a = pcts(attic.samples);
  const p = pcts(page.samples);
  return (["p50", "p95", "p99"] as const).map((k) =>
    figure({
      benchmark: "search",
      metric: `search ${FILES} files, ${k} latency`,
      unit: "ms",
      attic: r3(a[k]),
      referenceName: "plocate -i -l 50",
      reference: r3(p[k]),
      higherIsBetter: false,
      atticPeakRssMiB: r3(attic.peakRssMiB),
      atticSamples: attic.samples.map(r3),
      referenceSamples: page.samples.map(r3),
      note,
    }),
  );
}

/** Per query of the mix: hits and latencies of both. */
function perQueryRows(attic: Attic, page: Plocate, count: Plocate) {
  return attic.perQuery.map((q, k) => ({
    label: q.label,
    total: q.total,
    total_is_estimate: q.estimated,
    exact_total: q.exact,
    attic_p50_ms: r3(percentile(q.samples, 50)),
    attic_max_ms: r3(Math.max(...q.samples)),
    plocate_l50_p50_ms: r3(percentile(page.perQuery[k]!, 50)),
    plocate_count_p50_ms: r3(percentile(count.perQuery[k]!, 50)),
  }));
}

async function measure(db: Db, plocateDb: string): Promise<void> {
  const dbBytes = ["", "-wal"].reduce(
    (n, x) => n + (statSync(db.$client.name + x, { throwIfNoEntry: false })?.size ?? 0),
    0,
  );
  say(`  attic: ${QUERIES} queries through the search service`);
  const attic = await runAttic(db);
  say(`  plocate: ${QUERIES} queries, twice (-l 50, -c)`);
  const page = runPlocate(plocateDb, ["-l", "50"]);
  const count = runPlocate(plocateDb, ["-c"]);
  const baseline = spawnBaseline();
  let wide: Awaited<ReturnType<typeof runWide>> | undefined;
  if (args.wide) {
    say(`  attic: ${WIDE_TERMS.length * WIDE_VARIANTS.length} wider shapes, 3 runs each (--wide)`);
    wide = await runWide(db);
  }
  db.$client.close();
  const note = `plocate -i incl. process start (spawn of /bin/true: ${r3(baseline)} ms); ${FILES} rows, ${QUERIES} queries`;
  const figures = toFigures(attic, page, note);
  figures.forEach(printFigure);
  const c = pcts(count.samples);
  process.stdout.write(
    `  plocate -i -c (full count): p50 ${r3(c.p50)} ms, p95 ${r3(c.p95)} ms, p99 ${r3(c.p99)} ms\n`,
  );
  const perQuery = perQueryRows(attic, page, count);
  const wideSummary = wide && { ...pcts(wide.map((x) => x.ms)), max: wide[0]!.ms, shapes: wide };
  for (const q of perQuery) {
    process.stdout.write(
      `    ${q.label.padEnd(28)} ${(q.total_is_estimate ? `~${q.total} (${q.exact_total})` : String(q.total)).padStart(15)} hits  attic p50 ${q.attic_p50_ms} ms (max ${q.attic_max_ms})  plocate -l50 ${q.plocate_l50_p50_ms} ms  -c ${q.plocate_count_p50_ms} ms\n`,
    );
  }
  const report = {
    date: new Date().toISOString(),
    files: FILES,
    queries: QUERIES,
    buildSeconds: Number(process.env.BENCH_SEARCH_BUILD_SECONDS) || undefined,
    dbBytes,
    attic: { ...pcts(attic.samples), peakRssMiB: attic.peakRssMiB },
    plocateFirst50: pcts(page.samples),
    plocateCount: c,
    spawnBaselineMs: baseline,
    perQuery,
    wide: wideSummary,
  };
  if (wideSummary) {
    const w = wideSummary;
    process.stdout.write(
      `  wider shapes (${w.shapes.length}, median of 3 each): p50 ${r3(w.p50)} ms, p95 ${r3(w.p95)} ms, p99 ${r3(w.p99)} ms, max ${r3(w.max)} ms; slowest:\n`,
    );
    for (const x of w.shapes.slice(0, 12)) {
      process.stdout.write(
        `    ${r3(x.ms).toString().padStart(9)} ms  ${x.estimated ? "~" : ""}${x.total} hits  ${JSON.stringify(x.query)}\n`,
      );
    }
  }
  mkdirSync(join(ROOT, "bench-results"), { recursive: true });
  writeFileSync(join(ROOT, "bench-results", "search.json"), `${JSON.stringify(report, null, 2)}\n`);
  if (process.env.BENCH_RESULTS_FILE) writeFileSync(process.env.BENCH_RESULTS_FILE, JSON.stringify(figures));
}

async function main(): Promise<void> {
  const { db, plocateDb, buildSeconds } = prepare();
  if (buildSeconds === undefined) {
    await measure(db, plocateDb);
    return;
  }
  // Measure in a fresh process: the build's memory would hide the search's peak RSS.
  db.$client.close();
  say(`  build took ${buildSeconds.toFixed(1)} s; measuring in a fresh process`);
  const r = spawnSync(
    process.execPath,
    [import.meta.filename, "--files", String(FILES), "--queries", String(QUERIES)],
    {
      stdio: "inherit",
      env: { ...process.env, BENCH_SEARCH_BUILD_SECONDS: buildSeconds.toFixed(1) },
    },
  );
  process.exit(r.status ?? 1);
}

await main();
