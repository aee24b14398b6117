import { existsSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import type { MiddlewareHandler } from "hono";
import type { Env } from "./env.ts";

/**
 * The bundled browser UI (web/dist, built by scripts/build-web.ts).
 *
 * Every byte the UI serves goes through `readWebAsset()` and every servable
 * name is listed by `webAssetManifest()`: the single-executable build swaps
 * these two for embedded SEA assets, nothing else here reads the disk.
 */

let distDir: string | undefined;
let manifestCache: { files: readonly string[] } | undefined;

function webDist(): string {
  distDir ??= fileURLToPath(new URL("../../web/dist/", import.meta.url));
  return distDir;
}

/** Names (relative, `/`-separated) of the UI files; empty when the UI is not built. */
export function webAssetManifest(): readonly string[] {
  if (!manifestCache) {
    const file = `${webDist()}manifest.json`;
    if (!existsSync(file)) return [];
    const parsed = JSON.parse(readFileSync(file, "utf8")) as { files?: unknown };
    manifestCache = { files: Array.isArray(parsed.files) ? parsed.files.map(String) : [] };
  }
  return manifestCache.files;
}

/** Bytes of one UI file named in the manifest; undefined for anything else (no path is ever joined from input). */
export function readWebAsset(name: string): Uint8Array | undefined {
  if (!webAssetManifest().includes(name)) return undefined;
  try {
    return readFileSync(`${webDist()}${name}`);
  } catch {
    return undefined;
  }
}

const TYPES: Record<string, string> = {
  html: "text/html; charset=utf-8",
  js: "text/javascript; charset=utf-8",
  css: "text/css; charset=utf-8",
  svg: "image/svg+xml",
  png: "image/png",
  woff2: "font/woff2",
  json: "application/json",
};

/**
 * The UI's own policy: the default `default-src 'self'` plus `blob:` images,
 * which are thumbnails and previews fetched with the Authorization header by
 * the UI's script (an <img> cannot send it). No inline script or style.
 */
export const UI_CSP =
  "default-src 'self'; img-src 'self' blob:; object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'";

/** Paths that belong to the APIs: an unknown one must stay a JSON 404, never the UI. */
const API_PREFIXES = ["/api/", "/swagger", "/attic.v1.", "/health", "/metrics"];

/**
 * Serves the UI after every API route: hashed files under /assets/ with a
 * year-long immutable cache, and index.html (no-cache) for `/` and every
 * other GET that is not an API path, so client-side routes survive a reload.
 */
export function webUi(): MiddlewareHandler<Env> {
  return async function webUiMiddleware(c, next) {
    const path = c.req.path;
    if ((c.req.method !== "GET" && c.req.method !== "HEAD") || API_PREFIXES.some((p) => path.startsWith(p))) {
      return next();
    }
    const name = path.slice(1);
    const asset = name.startsWith("assets/") ? readWebAsset(name) : undefined;
    if (asset) {
      const ext = name.slice(name.lastIndexOf(".") + 1);
      return c.body(asset as Uint8Array<ArrayBuffer>, 200, {
        "Content-Type": TYPES[ext] ?? "application/octet-stream",
        "Cache-Control": "public, max-age=31536000, immutable",
      });
    }
    if (name.startsWith("assets/")) return next();
    const index = readWebAsset("index.html");
    if (!index) {
      return c.text("The web UI is not built: run `npm run build:web`.", 503, {
        "Cache-Control": "no-store",
      });
    }
    return c.body(index as Uint8Array<ArrayBuffer>, 200, {
      "Content-Type": TYPES.html!,
      "Cache-Control": "no-cache",
      "Content-Security-Policy": UI_CSP,
    });
  };
}
