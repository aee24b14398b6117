import { mkdirSync, rmSync } from "node:fs";
import { mkdir, readFile, rm, stat } from "node:fs/promises";
import { join } from "node:path";

/**
 * A directory of short-lived working files under the data dir (conversions'
 * segments): emptied when the server starts, one subdirectory per job,
 * removed when the job ends. The domain sees names, never node:fs.
 */
export function createWorkDir(root: string) {
  // Whatever a previous run left (a crash mid-conversion) goes at start-up.
  rmSync(root, { recursive: true, force: true });
  mkdirSync(root, { recursive: true, mode: 0o750 });
  return {
    root,
    /** A fresh subdirectory `name` (emptied if it exists). */
    async make(name: string): Promise<string> {
      const dir = join(root, name);
      await rm(dir, { recursive: true, force: true });
      await mkdir(dir, { recursive: true, mode: 0o750 });
      return dir;
    },
    async remove(name: string): Promise<void> {
      await rm(join(root, name), { recursive: true, force: true }).catch(() => undefined);
    },
    /** A file's text, or "" when it does not exist yet. */
    async text(path: string): Promise<string> {
      return readFile(path, "utf8").catch(() => "");
    },
    /** A file's size, or undefined when it is gone. */
    async size(path: string): Promise<number | undefined> {
      return stat(path).then(
        (s) => s.size,
        () => undefined,
      );
    },
    async removeFile(path: string): Promise<void> {
      await rm(path, { force: true }).catch(() => undefined);
    },
    /** Removes everything (server stop). */
    clear(): void {
      rmSync(root, { recursive: true, force: true });
    },
  };
}

export type WorkDir = ReturnType<typeof createWorkDir>;
