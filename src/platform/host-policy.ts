import { realpathSync } from "node:fs";
import { isInside, isSystemPath, normalizeAbsolute } from "./hostfs.ts";

/**
 * Which host directories the instance admin may hand to Attic: never `/`, a
 * system directory or Attic's own data dir (nor anything containing it);
 * and, when `allowed_roots` is set, only directories inside one of them.
 * Every rule is applied to the path as written *and* to its real
 * (symlink-resolved) path, so `/proc/self/cwd` or a link into `/etc` is
 * refused like the directory it names.
 */
export interface HostPolicy {
  /** Why `real` (resolved) reached through `literal` may not be used, or undefined when it may. */
  refusal(literal: string, real: string): string | undefined;
  /** True when a directory may appear in suggestions: usable itself, or on the way to an allowed root. */
  suggestible(real: string): boolean;
  /** True when `real` may be listed to find suggestions below it. */
  browsable(literal: string, real: string): boolean;
}

export function createHostPolicy(opts: { dataDir: string; allowedRoots: readonly string[] }): HostPolicy {
  const dataDir = realOrSelf(opts.dataDir);
  // Each root as written and as resolved: a path as written (a literal) may name a root through its
  // link (/srv/media -> /mnt/disk1/media), its real path only the real one. A real path never lies
  // under a link, so taking both forms for either admits nothing outside the roots.
  const roots = [
    ...new Set(opts.allowedRoots.flatMap((r) => [normalizeAbsolute(r), realOrSelf(normalizeAbsolute(r))])),
  ];
  const touchesDataDir = (p: string) => isInside(p, dataDir) || isInside(dataDir, p);
  const inRoots = (p: string) => roots.length === 0 || roots.some((r) => isInside(p, r));
  const aboveRoot = (p: string) => roots.some((r) => isInside(r, p));

  const refusal = (literal: string, real: string): string | undefined => {
    const lit = normalizeAbsolute(literal);
    for (const p of [lit, real]) {
      if (isSystemPath(p)) return "is a system directory";
      if (touchesDataDir(p)) return "is, contains or lies inside Attic's data directory";
      if (!inRoots(p)) return "is outside the allowed roots (watch.allowed_roots)";
    }
    return undefined;
  };

  return {
    refusal,
    suggestible: (real) =>
      !isSystemPath(real) && !isInside(real, dataDir) && (inRoots(real) || aboveRoot(real)),
    browsable: (literal, real) =>
      [normalizeAbsolute(literal), real].every(
        (p) => (p === "/" || !isSystemPath(p)) && !isInside(p, dataDir) && (inRoots(p) || aboveRoot(p)),
      ),
  };
}

function realOrSelf(p: string): string {
  try {
    return realpathSync(p);
  } catch {
    return p;
  }
}
