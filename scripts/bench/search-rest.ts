/**
 * Search on a library Attic scanned itself, through REST on `build/attic`:
 * `node scripts/bench/search-rest.ts [--tree DIR] [--data DIR] [--runs 3] [--top 15]`
 * (or `npm run bench -- search-rest`).
 *
 * The search bench (search.ts) asks the search service in process over rows
 * it inserted itself; this one asks what a household's browser asks, over
 * HTTP, of rows a first scan wrote (host paths, the scan's index segments,
 * the shared generator's names: `../shared/bench/mktree.py`, ~90 % of its
 * files empty). `--tree` (default BENCH_WORK/tree, the 200k-file tree the
 * index bench builds; `mktree.py DIR 1000000 49000` for 1M) is mounted as a
 * watched folder named "Tree" in a data directory kept under BENCH_WORK for
 * the next runs (`--data DIR`: a data directory that already holds a
 * scanned library, used in place). Then every shape (TERMS × VARIANTS:
 * letters, digits, accents, CJK, Hangul, emoji, extensions, words, several
 * words; every sort and direction, a folder, directories only, a size range,
 * a date) runs `--runs` times; its median counts. Reference: `plocate -i
 * -l 50` over the same tree's paths (built once with plocate-build) for the
 * shapes without filters or sorts, process start included, as in
 * search.ts. Then a second, seeded set of other words and variants
 * (OTHER_TERMS), reported apart, and two more (THIRD_TERMS, FOURTH_TERMS:
 * every variant of both sets). Hashing is off (searches need no hash; it would share the
 * CPUs with them). Prints p50/p95/p99/max and the slowest shapes, writes
 * bench-results/search-rest.json, and figures for the harness in
 * BENCH_RESULTS_FILE.
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, renameSync, writeFileSync } from "node:fs";
import { basename, join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { type AtticProcess, startAttic, WORK } from "./lib/attic.ts";
import { type Figure, figure, printFigure, say } from "./lib/report.ts";
import { median, percentile } from "./lib/stats.ts";

const ROOT = resolve(import.meta.dirname, "../..");
const { values: args } = parseArgs({
  options: {
    tree: { type: "string", default: join(WORK, "tree") },
    data: { type: "string" },
    runs: { type: "string", default: "3" },
    top: { type: "string", default: "15" },
  },
});
const TREE = resolve(args.tree);
const RUNS = Number(args.runs);
const FOLDER = "Tree";

/** What a household types: short and long, accented, other scripts, extensions, several words. */
const TERMS = [
  ...[
    "a",
    "e",
    "1",
    "0",
    "é",
    "ö",
    "猫",
    "🎉",
    "ab",
    "20",
    "東京",
    "고양",
    "千と千尋",
    "坂本龍一",
    "かわいい",
  ],
  ...["🌅 sunset", ".jpg", ".flac", "mkv", "tar.gz", "holiday", "beach", "the", "final", "beach 2019"],
  ...["pink floyd", "breaking bad s03", "amelie 1985", "krakow live", "photos", "music", "img_2019"],
  ...["dsc0", "s01e0", "cafe", "ünïcödé", "αθήνα", "крёстный"],
];
const VARIANTS: Record<string, string>[] = [
  {},
  { sort_by: "size", sort_order: "desc" },
  { sort_by: "size", sort_order: "asc" },
  { sort_by: "updated_at", sort_order: "desc" },
  { sort_by: "relevance" },
  { sort_by: "name", sort_order: "desc" },
  { path: `/${FOLDER}/Photos` },
  { type: "directory" },
  { min_size: "100", max_size: "400" },
  { start_date: "2020-01-01" },
];

/**
 * A second set, asked after the first and reported apart: other words
 * (accented and bare, upper case, punctuation, longer phrases, digits,
 * words of the other categories' folders), each with four variants drawn
 * from other filters and sorts (a minimum of one byte, empty files only,
 * spans of dates, other folders, relevance under a folder, deep pages, pages
 * of 200), seeded: the same shapes every run. The first set was what the
 * plans were tuned on; this one stands for someone else's queries.
 */
const OTHER_TERMS = [
  ...["wembley", "season 03", "part 2", "bluray", "1080p", "radiohead", "mozart", "cello", "chernobyl"],
  ...["reykjavík", "reykjavik", "MÜNCHEN", "dusseldorf", "s03e", "copy", "v2", ".pdf", ".mp3", "heic"],
  ...["img_2015", "dsc1", "2024-0", "(copy", "x", "9", "ä", "ü", "ó", "party 🎉", "ー", "the office"],
  ...["greatest hits", "tax return 2019", "budapest hotel 2160p", "qqqzzz", "zz", "-", "_", ".", "#"],
  ...["[1080p]", "19", "hotel", "ha", "s", "mp4", "flac", "2019", "2020", "live", "daft punk"],
  ...["sigur rós", "björk", "fabuleux", "ñandú", "zoë", "naive", "naïve", "Ελλάδα", "αθηνα", "отец"],
  ...["夜景", "千と千尋の神隠し", "고양이", "かわいい猫", "🌅", "final final", "draft", "receipt", "notes"],
  ...["summer trip", "birthday", "wedding 2019", "christmas", "mountains", "family 2010"],
];
const OTHER_VARIANTS: Record<string, string>[] = [
  {},
  { path: `/${FOLDER}/Music` },
  { path: `/${FOLDER}/Movies` },
  { path: `/${FOLDER}/Documents`, sort_by: "size", sort_order: "desc" },
  { type: "file" },
  { end_date: "2019-01-01" },
  { start_date: "2018-01-01", end_date: "2024-01-01" },
  { min_size: "1" },
  { max_size: "0" },
  { sort_by: "created_at", sort_order: "asc" },
  { sort_by: "name", sort_order: "asc" },
  { sort_by: "updated_at", sort_order: "asc" },
  { path: `/${FOLDER}/Photos`, sort_by: "size", sort_order: "asc" },
  { path: `/${FOLDER}/Music`, sort_by: "relevance" },
  { offset: "500" },
  { limit: "200" },
  { min_size: "200", sort_by: "size", sort_order: "desc" },
  { type: "directory", sort_by: "name", sort_order: "desc" },
  { sort_by: "size", sort_order: "asc", min_size: "1" },
  { path: `/${FOLDER}/TV Shows`, sort_by: "updated_at", sort_order: "desc" },
];

/**
 * Two more sets, each term with every variant of both sets above, reported
 * apart: new words and phrases (a word with a number, a common word with a
 * filter, words of folders' names), and single characters, punctuation,
 * digits, CJK and short pairs. They found the outliers of a search made
 * for the sets above (0.3-0.9 s: docs/performance.md).
 */
const THIRD_TERMS = [
  ...["kraków", "krakow", "são paulo", "blade runner", "spirited", "director's cut", "extended"],
  ...["remastered", "jóga", "cosmos", "fargo", "dark", "planet earth", "invoice 2020", "contract"],
  ...["report", "scan", "old", "edited", "720p", "web-dl", "24-96", "mp3 320", "s12", "e05"],
  ...["img_2020", ".dng", ".mov", ".iso", ".deb", "dup", "part 1", "grand", "07", "5", "z", "é"],
  ...["東", "夜", "🎉 party", "budapest", "2160", "1999", "(", ")", "[", "–", "co", "ra", "ño"],
  ...["千", "고", "ё", "1985", "season", "e01", "s01e01", "dsc", "copy 12", "hits", "cello suites"],
  ...["отец крёстный", "munchen", "ölafur", "arnalds 2016"],
];
const FOURTH_TERMS = [
  ...["a", "b", "c", "d", "k", "m", "x", "z", "0", "1", "2", "3", "5", "7", "9", "-", "_", "."],
  ...["#", "(", "[", "]", "&", "'", ",", "!", "+", "@", "~", "–", "é", "ö", "ñ", "ß", "東", "夜"],
  ...["猫", "の", "고", "ё", "α", "🎉", "🌅", "ab", "zo", "19", "05", "e0", "s0", "東京", "夜景"],
  ...["_2", "(c", "é ö", "a b", "1 2"],
];
const ALL_VARIANTS = [...VARIANTS, ...OTHER_VARIANTS.filter((v) => Object.keys(v).length > 0)];

/** Four of OTHER_VARIANTS for each of OTHER_TERMS, drawn by a seeded generator (mulberry32). */
function otherShapes(seed = 7): Record<string, string>[] {
  let state = seed >>> 0;
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 2 ** 32;
  };
  return OTHER_TERMS.flatMap((q) => {
    const pool = [...OTHER_VARIANTS];
    return Array.from({ length: 4 }, () => ({ q, ...pool.splice(Math.floor(next() * pool.length), 1)[0]! }));
  });
}

interface Folder {
  id: string;
  name: string;
  path: string;
  status: string;
}

/** The data directory's watched folder, mounted and scanned first when there is none. */
async function library(a: AtticProcess): Promise<Folder> {
  const list = async () =>
    ((await a.api("GET", "/api/v1/watched-folders")).body as { folders: Folder[] }).folders;
  let folder = (await list())[0];
  if (!folder) {
    say(`search-rest: scanning ${TREE} (once; the data directory is kept for the next runs)`);
    const created = await a.api("POST", "/api/v1/watched-folders", { name: FOLDER, path: TREE });
    if (created.status !== 201) throw new Error(`create: ${created.status} ${JSON.stringify(created.body)}`);
    folder = created.body as Folder;
  }
  for (let i = 0; i < 2400 && ["scanning", "pending"].includes(folder.status); i++) {
    await new Promise((r) => setTimeout(r, 500));
    folder = (await list()).find((f) => f.id === folder!.id)!;
  }
  if (folder.status === "scanning") throw new Error("the scan did not finish within 20 minutes");
  return folder;
}

/** A plocate database of the tree's paths, built once beside the data directory. */
function plocateDb(root: string, dir: string): string | undefined {
  const db = join(dir, "plocate.db");
  if (existsSync(db)) return db;
  const list = join(dir, "paths.txt");
  const found = spawnSync("find", [root], { maxBuffer: 1 << 30 });
  if (found.status !== 0) return undefined;
  writeFileSync(list, found.stdout);
  const built = spawnSync("plocate-build", ["-l", "no", "-p", list, `${db}.tmp`], { encoding: "utf8" });
  if (built.status !== 0) {
    say(`search-rest: no plocate reference (${built.error?.message ?? built.stderr.trim()})`);
    return undefined;
  }
  renameSync(`${db}.tmp`, db);
  return db;
}

async function main(): Promise<void> {
  const dataDir = args.data ? resolve(args.data) : join(WORK, `search-rest-data-${basename(TREE)}`);
  mkdirSync(dataDir, { recursive: true });
  // Hashing the scanned files (in the background after a scan, and again for any left at a start)
  // would share the CPUs with the searches; none of them needs a hash.
  process.env.ATTIC_WATCH_HASH_CONCURRENCY = "0";
  const a = await startAttic({ dataDir, unpinned: true });
  const shapes = TERMS.flatMap((q) => VARIANTS.map((v) => ({ q, ...v })));
  const others = otherShapes();
  const third = THIRD_TERMS.flatMap((q) => ALL_VARIANTS.map((v) => ({ q, ...v })));
  const fourth = FOURTH_TERMS.flatMap((q) => ALL_VARIANTS.map((v) => ({ q, ...v })));
  const results: { shape: Record<string, string>; ms: number; total: number; estimated: boolean }[] = [];
  const otherResults: typeof results = [];
  const thirdResults: typeof results = [];
  const fourthResults: typeof results = [];
  let rss = 0;
  let root = "";
  try {
    const folder = await library(a);
    root = folder.path;
    // The search index's merge after a big scan runs while the server is quiet (index-merge.ts).
    await new Promise((r) => setTimeout(r, 5000));
    say(
      `search-rest: ${shapes.length} shapes, then ${others.length}, ${third.length} and ${fourth.length} others, × ${RUNS} through REST`,
    );
    const sets = [
      ...shapes.map(() => results),
      ...others.map(() => otherResults),
      ...third.map(() => thirdResults),
      ...fourth.map(() => fourthResults),
    ];
    for (const [i, shape] of [...shapes, ...others, ...third, ...fourth].entries()) {
      const path = `/api/v1/search?${new URLSearchParams(shape)}`;
      const times: number[] = [];
      let body = { total: 0, total_is_estimate: false };
      for (let i = 0; i < RUNS; i++) {
        const start = performance.now();
        const r = await a.api("GET", path);
        times.push(performance.now() - start);
        if (r.status !== 200) throw new Error(`${path}: ${r.status} ${JSON.stringify(r.body)}`);
        body = r.body as typeof body;
      }
      sets[i]!.push({
        shape,
        ms: median(times),
        total: body.total,
        estimated: body.total_is_estimate,
      });
    }
    rss = a.peakRssMiB();
  } finally {
    await a.stop();
  }

  const db = plocateDb(root, dataDir);
  const plain = results.filter((r) => Object.keys(r.shape).length === 1);
  const plocateMs: number[] = [];
  if (db)
    for (const r of plain) {
      const times: number[] = [];
      for (let i = 0; i < RUNS; i++) {
        const start = performance.now();
        const p = spawnSync("plocate", ["-i", "-l", "50", "-d", db, "--", ...r.shape.q!.split(" ")], {
          maxBuffer: 1 << 30,
        });
        times.push(performance.now() - start);
        if (p.status !== 0 && p.status !== 1) throw new Error(`plocate failed: ${p.stderr}`);
      }
      plocateMs.push(median(times));
    }

  const all = results.map((r) => r.ms);
  const plainMs = plain.map((r) => r.ms);
  const note = `median of ${RUNS} each, on a scan of ${TREE}`;
  const figures: Figure[] = [];
  const add = (metric: string, attic: number, samples: number[], reference: number, referenceName: string) =>
    figures.push(
      figure({
        benchmark: "search-rest",
        metric,
        unit: "ms",
        attic,
        referenceName,
        reference,
        higherIsBetter: false,
        atticPeakRssMiB: rss,
        atticSamples: samples,
        referenceSamples: Number.isNaN(reference) ? [] : plocateMs,
        note,
      }),
    );
  for (const p of [50, 95, 99]) {
    // Like for like: the shapes plocate can answer (text alone), against plocate on the same paths.
    add(
      `REST search, ${plain.length} text-only shapes, p${p}`,
      percentile(plainMs, p),
      plainMs,
      db ? percentile(plocateMs, p) : Number.NaN,
      db ? "plocate -i -l 50 incl. process start" : "no plocate-build here",
    );
  }
  for (const p of [50, 95, 99, 100]) {
    // Every shape: sorts and filters plocate has not; compared with nothing but the goals.
    add(
      `REST search, all ${results.length} shapes, ${p === 100 ? "max" : `p${p}`}`,
      percentile(all, p),
      all,
      Number.NaN,
      "no reference (sorts, filters)",
    );
  }
  for (const [name, set] of [
    ["other", otherResults],
    ["third-set", thirdResults],
    ["fourth-set", fourthResults],
  ] as const) {
    const ms = set.map((r) => r.ms);
    for (const p of [50, 95, 99, 100]) {
      add(
        `REST search, ${set.length} ${name} shapes, ${p === 100 ? "max" : `p${p}`}`,
        percentile(ms, p),
        ms,
        Number.NaN,
        "no reference (sorts, filters)",
      );
    }
  }
  for (const f of figures) printFigure(f);
  for (const [name, set] of [
    ["the first set", results],
    ["the other set", otherResults],
    ["the third set", thirdResults],
    ["the fourth set", fourthResults],
  ] as const) {
    say(`  ${name}: max ${Math.max(...set.map((r) => r.ms)).toFixed(1)} ms; slowest shapes:`);
    for (const r of [...set].sort((x, y) => y.ms - x.ms).slice(0, Number(args.top)))
      say(
        `    ${r.ms.toFixed(1).padStart(8)} ms ${String(r.total).padStart(8)}${r.estimated ? "~" : " "} ${JSON.stringify(r.shape)}`,
      );
  }
  mkdirSync(join(ROOT, "bench-results"), { recursive: true });
  writeFileSync(
    join(ROOT, "bench-results/search-rest.json"),
    `${JSON.stringify({ date: new Date().toISOString(), tree: TREE, runs: RUNS, results, otherResults, thirdResults, fourthResults, plocateMs }, null, 2)}\n`,
  );
  if (process.env.BENCH_RESULTS_FILE) writeFileSync(process.env.BENCH_RESULTS_FILE, JSON.stringify(figures));
}

await main().catch((err) => {
  console.error(err);
  process.exit(1);
});
