/**
 * `npm run build`: the single executable `build/attic`.
 *
 * 1. esbuild bundles src/main.ts into one CJS file (a SEA runs CommonJS).
 *    Requires of native modules listed in scripts/native-addons.ts are
 *    swapped for shims that, inside the SEA, dlopen the embedded copy.
 * 2. The web UI is built when scripts/build-web.ts exists.
 * 3. A Node SEA blob (code cache on) carries the bundle and, as assets, the
 *    native addons the bundle uses, web/dist, Swagger UI and docs/rpc.
 * 4. postject injects the blob into a copy of the same Node 24 binary.
 *
 * It targets Linux (glibc) on the CPU it runs on, x64 or arm64; elsewhere it
 * stops with a message saying so.
 */
import { execFileSync, spawnSync } from "node:child_process";
import {
  chmodSync,
  copyFileSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { createRequire } from "node:module";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { build, type Plugin } from "esbuild";
import { CHECKPOINT_WORKER_ASSET } from "../src/db/checkpointer.ts";
import { SEARCH_WORKER_ASSET } from "../src/domain/search/search-threads.ts";
import { SCAN_WRITER_ASSET } from "../src/domain/watched/scan-writer.ts";
import {
  type NativeAddonSpec,
  nativeAddons,
  resolveAddon,
  TARGET_ARCHES,
  targetArch,
} from "./native-addons.ts";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const OUT = join(ROOT, "build");
const NODE_MODULES = join(ROOT, "node_modules");
/** Linux x64 or arm64: the CPU this build runs on (the executable embeds that Node and those addons). */
const ARCH = targetArch();
const NATIVE_ADDONS = nativeAddons(ARCH);
const NODE_BINARY = join(NODE_MODULES, `node-linux-${ARCH}/bin/node`);
const SEA_FUSE = "NODE_SEA_FUSE_fce680ab2cc467b6e072b8b5df1996b2";

/**
 * Files embedded for readAsset() (src/platform/assets.ts), relative to the
 * repo root: a directory (recursively) and which file names to take.
 * Missing directories are skipped (the UI or RPC docs may not exist yet).
 */
const EMBEDDED_ASSETS: { dir: string; pattern: RegExp }[] = [
  { dir: "web/dist", pattern: /./ },
  { dir: "docs/rpc", pattern: /\.json$/ },
  {
    dir: "node_modules/swagger-ui-dist",
    pattern:
      /^(swagger-ui(-bundle|-standalone-preset)?\.(js|css)|index\.css|favicon-\d+x\d+\.png|oauth2-redirect\.(html|js))$/,
  },
];

const log = (msg: string): void => {
  process.stdout.write(`build: ${msg}\n`);
};

/** Swaps each intercepted native `require` for a shim over loadNativeAddon(); records which were used. */
function nativeAddonPlugin(used: Set<NativeAddonSpec>): Plugin {
  const sea = JSON.stringify(join(ROOT, "src/platform/sea.ts"));
  return {
    name: "attic-native-addons",
    setup(b) {
      for (const addon of NATIVE_ADDONS) {
        for (const spec of addon.intercept) {
          const filter = new RegExp(`^${spec.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&")}$`);
          b.onResolve({ filter }, (args) => {
            // The shim's own fallback: resolved by Node at run time outside the SEA.
            if (args.namespace === "attic-addon") return { path: spec, external: true };
            used.add(addon);
            return { path: spec, namespace: "attic-addon", pluginData: addon.name };
          });
        }
      }
      b.onLoad({ filter: /.*/, namespace: "attic-addon" }, (args) => ({
        contents: `const sea = require(${sea});
module.exports = sea.inSea() ? sea.loadNativeAddon(${JSON.stringify(args.pluginData)}) : require(${JSON.stringify(args.path)});`,
        resolveDir: ROOT,
        loader: "js",
      }));
      // Any other .node file (other platforms' binaries in try/catch): left to fail at run time.
      b.onResolve({ filter: /\.node$/ }, (args) => ({ path: args.path, external: true }));
    },
  };
}

/**
 * Bundles the `cjsPackages` of the addon table through their CommonJS entry.
 * Their template-literal requires of locally compiled binaries (tried first,
 * in try/catch) fail as "not found", so the package falls back to the
 * intercepted specifier instead of making esbuild glob for files.
 */
function cjsEntryPlugin(): Plugin {
  const requireFromRoot = createRequire(join(ROOT, "package.json"));
  const unbundled = `const __attic_unbundled = (p) => { throw Object.assign(new Error("Cannot find module " + p), { code: "MODULE_NOT_FOUND" }); };\n`;
  return {
    name: "attic-cjs-entries",
    setup(b) {
      for (const pkg of NATIVE_ADDONS.flatMap((a) => a.cjsPackages ?? [])) {
        b.onResolve({ filter: new RegExp(`^${pkg}$`) }, () => ({ path: requireFromRoot.resolve(pkg) }));
        const dir = join(NODE_MODULES, pkg);
        b.onLoad({ filter: /\.c?js$/ }, (args) => {
          if (!args.path.startsWith(dir)) return undefined;
          const source = readFileSync(args.path, "utf8");
          if (!source.includes("require(`")) return undefined;
          return {
            contents: unbundled + source.replaceAll("require(`", "__attic_unbundled(`"),
            loader: "js",
          };
        });
      }
    },
  };
}

/**
 * zod's locales as far as Attic uses them: English, which zod configures
 * itself. Its `locales` namespace export pulls in ~50 languages' error
 * messages, evaluated at start-up (~8 ms of CPU in a profile of the
 * executable's start); nothing in Attic or its libraries selects another.
 */
function zodEnglishOnlyPlugin(): Plugin {
  return {
    name: "attic-zod-english-only",
    setup(b) {
      b.onLoad({ filter: /[\\/]zod[\\/]v4[\\/]locales[\\/]index\.js$/ }, (args) => ({
        contents: `export { default as en } from "./en.js";\n`,
        loader: "js",
        resolveDir: dirname(args.path),
      }));
    },
  };
}

/** What every bundle of the executable shares: one CommonJS file for Node 24. */
const NODE_CJS = {
  bundle: true,
  platform: "node",
  format: "cjs",
  target: "node24",
  minifySyntax: true,
  // Without whitespace the bundle also loses its comments, whose "—" and "…" made the
  // whole 4 MB main script a two-byte string in V8's heap: 2.9 MB of Latin-1 instead,
  // ~5.5 MiB less idle RSS (docs/performance.md). Names stay, so stack traces still read.
  minifyWhitespace: true,
  legalComments: "none",
  sourcemap: false,
  logLevel: "warning",
} as const;

/** Step 1: the CJS bundle; returns the addons it reaches. */
async function bundle(outfile: string): Promise<NativeAddonSpec[]> {
  const used = new Set<NativeAddonSpec>(NATIVE_ADDONS.filter((a) => a.always));
  const result = await build({
    ...NODE_CJS,
    entryPoints: [join(ROOT, "src/main.ts")],
    outfile,
    logOverride: { "require-resolve-not-external": "silent" },
    // yazl's CRC-32 over node:zlib's native one (src/platform/zip-crc.ts says why).
    // mime-types through a shim that loads it (and mime-db) on the first lookup (src/platform/mime-types-lazy.cjs).
    alias: {
      "buffer-crc32": join(ROOT, "src/platform/crc32-native.cjs"),
      "mime-types": join(ROOT, "src/platform/mime-types-lazy.cjs"),
    },
    // CJS has no import.meta: give modules that use it the bundle's own location.
    define: {
      "import.meta.url": "__attic_import_meta_url",
      "import.meta.dirname": "__dirname",
      "import.meta.filename": "__filename",
    },
    banner: { js: `var __attic_import_meta_url = require("node:url").pathToFileURL(__filename).href;` },
    plugins: [nativeAddonPlugin(used), cjsEntryPlugin(), zodEnglishOnlyPlugin()],
    metafile: true,
  });
  log(`bundled ${Object.keys(result.metafile.inputs).length} modules into ${relative(ROOT, outfile)}`);
  return [...used];
}

/**
 * Step 1b: the database threads, the WAL checkpointer
 * (src/db/checkpoint-worker.ts), the scan writer
 * (src/domain/watched/scan-writer-worker.ts) and the search threads
 * (src/domain/search/search-worker.ts), each as a bundle of its own,
 * embedded as an asset and run as an eval'd worker (src/db/db-thread.ts):
 * a SEA cannot start a worker from a file it carries. better-sqlite3's
 * addon reaches them as a path (the copy the server extracted), so
 * `bindings`, its loader from node_modules, stays out.
 */
const DB_THREADS: Record<string, string> = {
  [CHECKPOINT_WORKER_ASSET]: "src/db/checkpoint-worker.ts",
  [SCAN_WRITER_ASSET]: "src/domain/watched/scan-writer-worker.ts",
  [SEARCH_WORKER_ASSET]: "src/domain/search/search-worker.ts",
};

async function bundleDbThreads(): Promise<Record<string, string>> {
  const assets: Record<string, string> = {};
  for (const [asset, entry] of Object.entries(DB_THREADS)) {
    const outfile = join(ROOT, asset);
    await build({ ...NODE_CJS, entryPoints: [join(ROOT, entry)], outfile, external: ["bindings"] });
    log(`bundled ${entry} into ${relative(ROOT, outfile)}`);
    assets[asset] = outfile;
  }
  return assets;
}

function listFiles(dir: string, pattern: RegExp): string[] {
  if (!existsSync(dir)) return [];
  const out: string[] = [];
  for (const entry of readdirSync(dir, { recursive: true, encoding: "utf8" }).sort()) {
    const abs = join(dir, entry);
    if (statSync(abs).isFile() && pattern.test(entry.split("/").pop()!)) out.push(abs);
  }
  return out;
}

/** Step 2: the web UI, when its build script exists. */
async function buildWebUi(): Promise<void> {
  const script = join(ROOT, "scripts/build-web.ts");
  if (!existsSync(script) || !existsSync(join(ROOT, "web/src/main.tsx"))) {
    return log("no web UI sources: web UI build skipped");
  }
  const mod = (await import(script)) as {
    buildWeb?: (opts: { prune?: boolean }) => Promise<{ files: string[] }>;
  };
  if (!mod.buildWeb) return log("scripts/build-web.ts has no buildWeb(): web UI skipped");
  const { files } = await mod.buildWeb({ prune: true });
  log(`web UI built (${files.length} files)`);
}

/** Step 3: SEA asset table, keys as readAsset()/loadNativeAddon() expect them. */
function seaAssets(addons: NativeAddonSpec[]): Record<string, string> {
  const assets: Record<string, string> = {};
  const manifest: Record<string, { hash: string; main: string; files: string[] }> = {};
  for (const spec of addons) {
    const r = resolveAddon(spec, NODE_MODULES);
    manifest[r.name] = { hash: r.hash, main: r.main, files: r.files };
    for (const f of r.files) assets[`native/${r.name}/${f}`] = join(NODE_MODULES, f);
  }
  const manifestFile = join(OUT, "native-manifest.json");
  writeFileSync(manifestFile, JSON.stringify(manifest, null, 2));
  assets["native/manifest.json"] = manifestFile;
  log(`native addons: ${Object.keys(manifest).join(", ")}`);
  for (const { dir, pattern } of EMBEDDED_ASSETS) {
    const files = listFiles(join(ROOT, dir), pattern);
    for (const abs of files) assets[relative(ROOT, abs).split("\\").join("/")] = abs;
    log(`assets ${dir}: ${files.length} files`);
  }
  return assets;
}

/** Steps 3 and 4: blob, copy of the Node binary, injection. */
function makeExecutable(bundleFile: string, assets: Record<string, string>, exe: string): void {
  const blob = join(OUT, "sea-prep.blob");
  const seaConfig = join(OUT, "sea-config.json");
  writeFileSync(
    seaConfig,
    JSON.stringify(
      {
        main: bundleFile,
        output: blob,
        disableExperimentalSEAWarning: true,
        useSnapshot: false,
        useCodeCache: true,
        // V8's young generation grows to 16 MiB per semi-space under load and stays there:
        // capped at 2 MiB, peak RSS over `npm run bench -- paths` fell from 327-383 MiB to about
        // 200 (semi-space 1: 185-201, 4: 233-235) for 1-4% more CPU per small request, within
        // that bench's noise (docs/performance.md). NODE_OPTIONS can still override it.
        // Starting at that size too (V8 starts at 1 MiB and grows) saves a few scavenges of the
        // start-up: main-thread CPU to the first /health 200 181 -> 175 ms in 19 interleaved
        // restarts, 210 -> 204 in 17 before; idle RSS unchanged.
        // The old generation: V8 lets it grow up to 4x its live size between full collections
        // (its factor depends on GC speed); a 1M-file first scan's main heap swung 35-86 MiB
        // over ~25 MiB live. Capped at 2x (`--heap-growing-percent=100`), the scan's peak RSS
        // fell 248/266 -> 212/224 MiB (pinned / both CPUs, `npm run bench -- index` at 1M, one
        // run each; 1.2x and 1.5x gave the same peaks), process CPU over the scan 61.4/66.8 ->
        // 65.0/65.0 s in two interleaved pairs, main thread 18.0/18.7 -> 18.4/18.6 s; over
        // `-- paths` the same req/s and peak RSS 201 -> 170 MiB (docs/performance.md).
        execArgv: ["--max-semi-space-size=2", "--min-semi-space-size=2", "--heap-growing-percent=100"],
        assets,
      },
      null,
      2,
    ),
  );
  // The blob must come from the very binary it is injected into.
  execFileSync(NODE_BINARY, ["--experimental-sea-config", seaConfig], { stdio: "inherit" });
  rmSync(exe, { force: true });
  copyFileSync(NODE_BINARY, exe);
  chmodSync(exe, 0o755);
  const injected = spawnSync(
    process.execPath,
    [join(NODE_MODULES, "postject/dist/cli.js"), exe, "NODE_SEA_BLOB", blob, "--sentinel-fuse", SEA_FUSE],
    { encoding: "utf8" },
  );
  // postject warns about every ELF note section it cannot name; harmless, so kept out of the way.
  const stderr = injected.stderr.replace(/^warning: Can't find string offset for section name.*\n/gm, "");
  if (stderr.trim()) process.stderr.write(stderr);
  if (injected.status !== 0) throw new Error(`postject failed with status ${injected.status}`);
}

async function main(): Promise<void> {
  const started = performance.now();
  if (!existsSync(NODE_BINARY)) throw new Error(`missing ${NODE_BINARY}: run npm ci`);
  log(
    `target: linux-${ARCH} (glibc) only, the CPU of this machine: the executable embeds this Node and ` +
      `these native addons. For ${TARGET_ARCHES.filter((a) => a !== ARCH).join(", ")}, build on such a machine`,
  );
  mkdirSync(OUT, { recursive: true });
  const bundleFile = join(OUT, "attic.cjs");
  const addons = await bundle(bundleFile);
  const threads = await bundleDbThreads();
  await buildWebUi();
  const exe = join(OUT, "attic");
  makeExecutable(bundleFile, { ...seaAssets(addons), ...threads }, exe);
  const mib = (statSync(exe).size / 1024 / 1024).toFixed(1);
  log(
    `wrote ${relative(ROOT, exe)}: runs on linux-${ARCH} with glibc only (${mib} MiB) in ${((performance.now() - started) / 1000).toFixed(1)} s`,
  );
}

await main();
