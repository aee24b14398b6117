import { existsSync, lstatSync, mkdirSync, mkdtempSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { homedir, tmpdir } from "node:os";
import { dirname, join } from "node:path";

/** One file to extract: its path inside the cache entry and a reader of its bytes. */
export interface CacheFile {
  rel: string;
  read(): Uint8Array;
}

/**
 * Directories tried in order for extracted native code: `$XDG_CACHE_HOME/attic`,
 * `~/.cache/attic`, then `<tmpdir>/attic-<uid>`. Independent of the data dir
 * on purpose: the data dir may sit on a noexec NAS share.
 */
export function cacheRoots(env: NodeJS.ProcessEnv = process.env): string[] {
  const roots: string[] = [];
  if (env.XDG_CACHE_HOME) roots.push(join(env.XDG_CACHE_HOME, "attic"));
  try {
    roots.push(join(env.HOME || homedir(), ".cache", "attic"));
  } catch {
    // No home directory (a service user): the temp dir remains.
  }
  roots.push(join(tmpdir(), `attic-${process.getuid?.() ?? "user"}`));
  return [...new Set(roots)];
}

/**
 * A cache root must be ours alone: a directory other users can write to (or
 * a symlink planted in /tmp) could hand us someone else's shared library.
 */
function ensurePrivateDir(dir: string): void {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const st = lstatSync(dir);
  if (!st.isDirectory()) throw new Error("not a directory");
  if (process.getuid && st.uid !== process.getuid()) throw new Error("owned by another user");
  if (st.mode & 0o022) throw new Error("writable by other users");
}

/** Writes every file into a fresh temp dir beside `dir`, then renames it into place (atomic). */
function extractInto(root: string, dir: string, files: CacheFile[]): void {
  const tmp = mkdtempSync(join(root, ".tmp-"));
  try {
    for (const f of files) {
      const target = join(tmp, f.rel);
      mkdirSync(dirname(target), { recursive: true, mode: 0o700 });
      writeFileSync(target, f.read(), { mode: 0o700 });
    }
    renameSync(tmp, dir);
  } catch (err) {
    rmSync(tmp, { recursive: true, force: true });
    // Another process finished the same entry first: use theirs.
    if (!existsSync(dir)) throw err;
  }
}

/**
 * Makes sure `files` exist under `<root>/<name>` (content-addressed: an
 * existing entry is complete, since entries appear only by rename) and calls
 * `load(dir)`. Tries each root of cacheRoots() until one loads: a root on a
 * noexec mount fails at dlopen and the next is tried. A damaged entry is
 * extracted again once.
 */
export function extractToCache<T>(
  name: string,
  files: CacheFile[],
  load: (dir: string) => T,
  roots: string[] = cacheRoots(),
): T {
  const errors: string[] = [];
  for (const root of roots) {
    try {
      ensurePrivateDir(root);
      const dir = join(root, name);
      if (!existsSync(dir)) {
        extractInto(root, dir, files);
        return load(dir);
      }
      try {
        return load(dir);
      } catch {
        rmSync(dir, { recursive: true, force: true });
        extractInto(root, dir, files);
        return load(dir);
      }
    } catch (err) {
      errors.push(`${root}: ${(err as Error).message}`);
    }
  }
  throw new Error(`cannot load native code ${name}; tried:\n  ${errors.join("\n  ")}`);
}
