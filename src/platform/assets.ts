import { existsSync, readFileSync } from "node:fs";
import { dirname, join, normalize, sep } from "node:path";
import { getRawAsset, isSea } from "node:sea";
import { fileURLToPath } from "node:url";

/**
 * The ONE way to read files shipped with Attic (web UI, Swagger UI, RPC
 * OpenAPI documents): `readAsset("web/dist/index.html")`,
 * `readAsset("node_modules/swagger-ui-dist/swagger-ui.css")`,
 * `readAsset("docs/rpc/file.json")`. Paths are relative to the repository
 * root, `/`-separated.
 *
 * Inside the single executable they come from the SEA assets that
 * scripts/build.ts embeds (`web/dist/**`, swagger-ui-dist, `docs/rpc/*.json`:
 * add a new directory there, in EMBEDDED_ASSETS); from a checkout, from the
 * file in the repository. Returns undefined when there is no such asset;
 * never reads outside the repository root.
 */
export function readAsset(relPath: string): Buffer | undefined {
  const rel = normalize(relPath).split(sep).join("/");
  if (rel.startsWith("..") || rel.startsWith("/") || rel.includes("\0")) return undefined;
  if (isSea()) {
    try {
      return Buffer.from(getRawAsset(rel));
    } catch {
      return undefined;
    }
  }
  try {
    return readFileSync(join(repoRoot(), rel));
  } catch {
    return undefined;
  }
}

let root: string | undefined;

/**
 * The repository root: the nearest directory above this module holding
 * package.json. Works from `src/platform/` and from a bundle in `build/`.
 */
export function repoRoot(): string {
  if (root) return root;
  let dir = dirname(fileURLToPath(import.meta.url));
  while (!existsSync(join(dir, "package.json")) && dirname(dir) !== dir) dir = dirname(dir);
  root = dir;
  return root;
}
