/**
 * Builds the browser UI: web/src/main.tsx and web/src/styles.css bundled by
 * esbuild into content-hashed files under web/dist/assets/, plus index.html
 * (which references them) and manifest.json (every file the server may
 * serve). Run as `npm run build:web`; the single-executable build imports
 * `buildWeb()` and embeds the files the manifest lists.
 */
import {
  copyFileSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { basename, dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { gzipSync } from "node:zlib";
import { build } from "esbuild";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..");

export interface WebBuildResult {
  /** Absolute output directory. */
  outDir: string;
  /** Paths relative to outDir, `/`-separated, index.html included. */
  files: string[];
}

/**
 * Bundles the UI into `outDir` (default web/dist) without ever leaving it
 * half written: the files are built in a staging directory beside it, the
 * content-hashed assets moved in first, index.html and manifest.json last
 * (each a rename, atomic), so a server reading the directory meanwhile (a
 * parallel test, say) always finds every file its manifest names. Assets of
 * earlier builds stay unless `prune` is set (the command-line build).
 */
export async function buildWeb(
  opts: { outDir?: string; minify?: boolean; prune?: boolean } = {},
): Promise<WebBuildResult> {
  const finalDir = resolve(opts.outDir ?? join(ROOT, "web", "dist"));
  mkdirSync(dirname(finalDir), { recursive: true });
  const outDir = mkdtempSync(`${finalDir}.staging-`);
  try {
    const built = await buildInto(outDir, opts.minify ?? true);
    publish(outDir, finalDir, built, opts.prune ?? false);
    return { outDir: finalDir, files: built };
  } finally {
    rmSync(outDir, { recursive: true, force: true });
  }
}

/** Moves a staged build into place: assets first, then index.html and manifest.json; prunes the rest when asked. */
function publish(staging: string, finalDir: string, files: string[], prune: boolean): void {
  mkdirSync(join(finalDir, "assets"), { recursive: true });
  const last = new Set(["index.html", "manifest.json"]);
  for (const f of [...files.filter((x) => !last.has(x)), "index.html", "manifest.json"]) {
    renameSync(join(staging, f), join(finalDir, f));
  }
  if (!prune) return;
  const keep = new Set(files.filter((f) => f.startsWith("assets/")).map((f) => f.slice("assets/".length)));
  for (const name of readdirSync(join(finalDir, "assets"))) {
    if (!keep.has(name)) rmSync(join(finalDir, "assets", name), { force: true });
  }
}

/** Bundles the UI into an empty directory; answers the files written (manifest.json not included). */
async function buildInto(outDir: string, minify: boolean): Promise<string[]> {
  mkdirSync(join(outDir, "assets"), { recursive: true });
  const result = await build({
    entryPoints: { app: join(ROOT, "web/src/main.tsx"), style: join(ROOT, "web/src/styles.css") },
    bundle: true,
    format: "esm",
    // hls.js (~400 KB) is a chunk of its own, loaded the first time a converted stream plays.
    splitting: true,
    chunkNames: "chunk-[hash]",
    target: ["es2022", "chrome110", "firefox115", "safari16"],
    outdir: join(outDir, "assets"),
    entryNames: "[name]-[hash]",
    assetNames: "[name]-[hash]",
    jsx: "automatic",
    jsxImportSource: "preact",
    minify,
    sourcemap: false,
    metafile: true,
    legalComments: "none",
    logLevel: "warning",
    loader: { ".svg": "file", ".woff2": "file" },
  });
  const outputs = Object.keys(result.metafile.outputs).map((p) => relative(outDir, resolve(ROOT, p)));
  const js = outputs.find((p) => basename(p).startsWith("app-") && p.endsWith(".js"));
  const css = outputs.find((p) => basename(p).startsWith("style-") && p.endsWith(".css"));
  if (!js || !css) throw new Error(`web build produced no app bundle: ${outputs.join(", ")}`);
  const template = readFileSync(join(ROOT, "web/index.html"), "utf8");
  const html = template.replace("%APP_JS%", `/${js}`).replace("%APP_CSS%", `/${css}`);
  writeFileSync(join(outDir, "index.html"), html);
  copyFileSync(join(ROOT, "web/favicon.svg"), join(outDir, "assets/favicon.svg"));
  const files = ["index.html", "assets/favicon.svg", ...outputs.filter((p) => !p.endsWith(".js.map"))]
    .map((p) => p.split("\\").join("/"))
    .filter((p) => !(p.startsWith("assets/style-") && p.endsWith(".js")));
  // Precompressed copies of the text assets: served when the browser accepts gzip, no work per request.
  for (const f of files.filter((p) => /\.(js|css|svg)$/.test(p))) {
    writeFileSync(join(outDir, `${f}.gz`), gzipSync(readFileSync(join(outDir, f)), { level: 9 }));
    files.push(`${f}.gz`);
  }
  writeFileSync(join(outDir, "manifest.json"), `${JSON.stringify({ files }, null, 2)}\n`);
  return files;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const started = performance.now();
  const { outDir, files } = await buildWeb({ prune: true });
  const ms = Math.round(performance.now() - started);
  process.stdout.write(`web UI built into ${relative(ROOT, outDir)} (${files.length} files, ${ms} ms)\n`);
}
