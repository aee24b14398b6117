import type { MiddlewareHandler } from "hono";
import { readAsset } from "../platform/assets.ts";
import type { Env } from "./env.ts";

/**
 * The bundled browser UI (web/dist, built by scripts/build-web.ts).
 *
 * Every byte the UI serves goes through `readWebAsset()` and every servable
 * name is listed by `webAssetManifest()` (web/dist/manifest.json, written by
 * the build); both read through `readAsset()`, so the single executable
 * serves its embedded copy and a checkout serves the files on disk.
 */

let manifestCache: readonly string[] | undefined;

/** Names (relative to web/dist, `/`-separated) of the UI files; empty when the UI is not built. */
function webAssetManifest(): readonly string[] {
  if (!manifestCache) {
    const raw = readAsset("web/dist/manifest.json");
    if (!raw) return [];
    const parsed = JSON.parse(raw.toString("utf8")) as { files?: unknown };
    manifestCache = Array.isArray(parsed.files) ? parsed.files.map(String) : [];
  }
  return manifestCache;
}

/** Bytes of one UI file named in the manifest; undefined for anything else (no path is ever built from input). */
function readWebAsset(name: string): Uint8Array | undefined {
  if (!webAssetManifest().includes(name)) return undefined;
  return readAsset(`web/dist/${name}`);
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
const UI_CSP =
  "default-src 'self'; img-src 'self' blob:; object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'";

/** Paths that belong to the APIs: an unknown one must stay a JSON 404, never the UI. */
const API_PREFIXES = ["/api/", "/swagger", "/attic.v1.", "/health", "/metrics", "/dav", "/s/"];

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
    if (name.startsWith("assets/") && !name.endsWith(".gz")) {
      const gzip = /\bgzip\b/.test(c.req.header("accept-encoding") ?? "");
      const packed = gzip ? readWebAsset(`${name}.gz`) : undefined;
      const asset = packed ?? readWebAsset(name);
      if (asset) {
        const ext = name.slice(name.lastIndexOf(".") + 1);
        return c.body(asset as Uint8Array<ArrayBuffer>, 200, {
          "Content-Type": TYPES[ext] ?? "application/octet-stream",
          "Cache-Control": "public, max-age=31536000, immutable",
          Vary: "Accept-Encoding",
          ...(packed ? { "Content-Encoding": "gzip" } : {}),
        });
      }
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
