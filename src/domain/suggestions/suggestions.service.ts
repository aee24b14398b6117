import { join } from "node:path";
import { AppError, invalid, notFound } from "../../errors.ts";
import type { HostPolicy } from "../../platform/host-policy.ts";
import { dirEntries, normalizeAbsolute, realDir, realPathOf } from "../../platform/hostfs.ts";
import { type Actor, requireInstanceAdmin } from "../actor.ts";
import { parseInput } from "../parse-input.ts";
import { PathSuggestionsInput } from "./suggestions.schemas.ts";

export interface SuggestionsOptions {
  /** Which host directories may be shown (system dirs, the data dir, watch.allowed_roots). */
  hostPolicy: HostPolicy;
  /** Time allowed per request (docs/api.md: 5 s). */
  timeoutMs?: number;
  /** Directory entries examined at most per request (huge directories answer from the first ones). */
  maxEntries?: number;
}

/**
 * Host directory suggestions for the admin typing a watched folder's path
 * (GET /filesystem/path-suggestions, FilesystemService.GetPathSuggestions).
 * Rules: an instance admin only (host paths are the machine owner's); an
 * absolute prefix without `..` (400); the prefix and its directory part are
 * checked as written and resolved through symlinks, `.` and `//` against the
 * host policy (403 ERR_FORBIDDEN_PATH: system dirs, the data dir, outside
 * watch.allowed_roots); missing → 404; only directories whose name starts
 * with the last segment and that the policy allows (or that lead to an
 * allowed root), alphabetical, at most `limit`. The listing reads
 * entries in small batches, one file-system call in flight at a time, and
 * stops at a deadline, so a slow mount cannot hold the thread pool.
 */
export function createSuggestionsService(opts: SuggestionsOptions) {
  const policy = opts.hostPolicy;
  const timeoutMs = opts.timeoutMs ?? 5000;
  const maxEntries = opts.maxEntries ?? 20_000;

  return {
    async suggest(actor: Actor, input: unknown): Promise<{ suggestions: string[] }> {
      requireInstanceAdmin(actor, "host path suggestions");
      const q = parseInput(PathSuggestionsInput, input);
      const { dir, partial } = splitPrefix(q.prefix);
      // The whole prefix naming a refused directory (as written or through a link) is refused outright.
      const literal = normalizeAbsolute(q.prefix);
      const whole = await realPathOf(literal).catch(() => undefined);
      if (whole && literal !== "/" && !policy.browsable(literal, whole))
        throw new AppError("FORBIDDEN_PATH", `${q.prefix} may not be watched`);
      const real = await realPathOf(dir).catch((err: NodeJS.ErrnoException) => {
        if (err.code === "EACCES") throw new AppError("FORBIDDEN_PATH", `${dir} is not readable`);
        throw notFound("path");
      });
      if (!policy.browsable(dir, real)) throw new AppError("FORBIDDEN_PATH", `${dir} may not be watched`);
      const deadline = Date.now() + timeoutMs;
      const names = await matchingDirs(real, partial, deadline, maxEntries, policy);
      const base = dir === "/" ? "" : dir;
      return {
        suggestions: names
          .sort(byCodePoint)
          .slice(0, q.limit)
          .map((n) => `${base}/${n}`),
      };
    },
  };
}

/** Splits "/mnt/me" into the directory "/mnt" and the partial name "me" ("/mnt/" → "/mnt", ""). */
function splitPrefix(prefix: string): { dir: string; partial: string } {
  if (!prefix.startsWith("/")) throw invalid("prefix must be an absolute path", { field: "prefix" });
  if (prefix.includes("..")) throw invalid("prefix must not contain '..'", { field: "prefix" });
  if (prefix.includes("\0")) throw invalid("prefix must not contain NUL", { field: "prefix" });
  const cut = prefix.lastIndexOf("/");
  const partial = prefix.slice(cut + 1);
  const dir = normalizeAbsolute(prefix.slice(0, cut) || "/");
  // "/mnt/." names the directory itself, not a prefix of hidden names.
  if (partial === ".") return { dir, partial: "" };
  return { dir, partial };
}

async function matchingDirs(
  real: string,
  partial: string,
  deadline: number,
  maxEntries: number,
  policy: HostPolicy,
): Promise<string[]> {
  const out: string[] = [];
  const showHidden = partial.startsWith(".");
  const entries = dirEntries(real);
  try {
    let seen = 0;
    for await (const { name, kind } of entries) {
      if (++seen > maxEntries) break;
      if (Date.now() > deadline) throw new AppError("TIMEOUT", "listing the directory timed out");
      if (!name.startsWith(partial) || (!showHidden && name.startsWith("."))) continue;
      const path = join(real, name);
      if (kind === "dir" ? policy.suggestible(path) : kind === "symlink" && (await isDirLink(path, policy)))
        out.push(name);
    }
  } catch (err) {
    if (err instanceof AppError) throw err;
    const code = (err as NodeJS.ErrnoException).code;
    if (code === "ENOTDIR" || code === "ENOENT") throw notFound("path");
    if (code === "EACCES") throw new AppError("FORBIDDEN_PATH", "directory is not readable");
    throw new AppError("INTERNAL", "directory read failed", undefined, { cause: err });
  }
  return out;
}

/** A symlink to a directory the policy allows once resolved. */
async function isDirLink(path: string, policy: HostPolicy): Promise<boolean> {
  const target = await realDir(path);
  return target !== undefined && policy.suggestible(target) && policy.suggestible(path);
}

const byCodePoint = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

export type SuggestionsService = ReturnType<typeof createSuggestionsService>;
