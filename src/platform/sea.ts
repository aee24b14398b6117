import { getRawAsset, isSea } from "node:sea";
import { extractToCache } from "./native-cache.ts";

/**
 * Native addons inside the single executable (SEA).
 *
 * A SEA's `require` loads only built-in modules, so a `.node` file cannot be
 * required by path. The build (scripts/build.ts) embeds each addon's files as
 * SEA assets `native/<name>/<path under node_modules>` plus a manifest
 * `native/manifest.json`; at run time they are extracted once to a cache dir
 * keyed by their content hash and loaded with `process.dlopen`. From a
 * checkout none of this runs: Node's own resolution finds the addons.
 */

/** The manifest the build writes: per addon, its content hash, files and the file to dlopen. */
export interface AddonManifest {
  [name: string]: { hash: string; main: string; files: string[] };
}

/** Name of the manifest asset inside the executable. */
const MANIFEST_ASSET = "native/manifest.json";

/** True inside the single executable. */
export function inSea(): boolean {
  return isSea();
}

let manifest: AddonManifest | undefined;
const loaded = new Map<string, unknown>();
const loadedFrom = new Map<string, string>();

function readManifest(): AddonManifest {
  manifest ??= JSON.parse(Buffer.from(getRawAsset(MANIFEST_ASSET)).toString("utf8")) as AddonManifest;
  return manifest;
}

/**
 * Loads one embedded addon by its name in the build's table (e.g. "argon2",
 * "sharp", "better-sqlite3") and returns its exports; later calls return the
 * same object. Only valid inside the SEA; throws when the build did not embed it.
 */
export function loadNativeAddon(name: string): unknown {
  const cached = loaded.get(name);
  if (cached) return cached;
  const entry = readManifest()[name];
  if (!entry) throw new Error(`native addon ${name} is not embedded in this executable`);
  const files = entry.files.map((rel) => ({
    rel,
    read: () => Buffer.from(getRawAsset(`native/${name}/${rel}`)),
  }));
  const exports = extractToCache(`native-${entry.hash}`, files, (dir) => {
    const module = { exports: {} as unknown };
    process.dlopen(module, `${dir}/${entry.main}`);
    loadedFrom.set(name, `${dir}/${entry.main}`);
    return module.exports;
  });
  loaded.set(name, exports);
  return exports;
}

/**
 * The file an embedded addon was loaded from (loading it first), for a
 * worker thread that must dlopen it itself; undefined outside the SEA.
 */
export function nativeAddonFile(name: string): string | undefined {
  if (!inSea()) return undefined;
  loadNativeAddon(name);
  return loadedFrom.get(name);
}

/** Addons that the composition root hands over explicitly (better-sqlite3's `nativeBinding`). */
export interface NativeAddons {
  betterSqlite3?: unknown;
}

/**
 * In the SEA, the loaded better-sqlite3 binding for `new Database(file,
 * {nativeBinding})` (a path string does not work there); undefined from a
 * checkout, where better-sqlite3 finds its own prebuilt binary.
 */
export function nativeAddons(): NativeAddons | undefined {
  if (!inSea()) return undefined;
  return { betterSqlite3: loadNativeAddon("better-sqlite3") };
}
