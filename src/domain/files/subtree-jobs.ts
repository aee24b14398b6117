import type Database from "better-sqlite3";
import { type Db, writeTransaction } from "../../db/client.ts";
import { nowIso } from "../../platform/ids.ts";

/**
 * Changes to every row below a folder, made a folder at a time. A folder's
 * move or rename rewrites every row below it (each stores its full path and
 * access root), a delete or a restore marks each of them, a purge removes
 * them, a folder given its own list of grants (or losing it) changes the
 * access root of those that inherited it: in one transaction, with the
 * subtree's rows read into memory first (or one recursive statement for a
 * grant), that held the server's only thread for seconds at 100k+ rows
 * (renaming a 166k-row folder of the search bench: 5-6 s with every other
 * request waiting; its grants 3 s) and grew the heap by the size of the
 * subtree; anyone who may rename, delete or re-grant a large folder could
 * do it again and again.
 *
 * The change to the folder's own row commits at once with a row in
 * `subtree_jobs`; then `finish` walks the subtree from the folder down, in
 * transactions of at most SLICE_MS (or `sliceRows` rows), yielding to other
 * requests in between, and deletes that row in the last one. A walk reads
 * each folder's children when its turn comes (never the whole subtree) and
 * is idempotent: a start finishes what a stop interrupted (`finishAllNow`),
 * and a row added below meanwhile is either written as the walk would
 * write it or walked. Until a walk is done, rows below the folder may show
 * their old path, or still be live (or still deleted); the request that
 * started it answers after it, so its caller sees the whole change.
 */

/** Longest a transaction of a walk holds the write lock and the thread. */
const SLICE_MS = 20;

/**
 * Rows a statement of a walk writes at most. A statement per row cost ~30 µs
 * a row on the search bench's 1M-row database (each execution sets up the
 * search index's trigger again); one per batch, about half.
 */
const BATCH = 256;

/** What a walk does to the rows below its folder (a grant: which access root governs them). */
export type JobKind = "move" | "delete" | "restore" | "purge" | "grant";

/** Where a subtree's deepest and longest rows are, below its root. */
export interface Extent {
  /** Characters the longest path below adds to the root's. */
  chars: number;
  /** Levels below the root. */
  levels: number;
}

/** What a delete must know of the live rows below a folder before it starts. */
export interface Inspection {
  /** Live rows below. */
  rows: number;
  /** Some live row below is one the viewer may not change. */
  unwritable: boolean;
  /** Some live row below mirrors a watched folder. */
  watched: boolean;
  /** How far the live rows reach below the folder. */
  extent: Extent;
}

/** A row directly below a folder. */
type Child = [
  rowid: number,
  id: string,
  dir: number,
  deleted: number,
  len: number,
  acl: string | null,
  watched: number,
];

/** A folder waiting to be walked: its id, and its path (a move) or its extent so far (a read). */
interface Pending {
  id: string;
  path: string;
  chars: number;
  levels: number;
}

/** A row a walk wrote: its id, path, and whether a directory. */
interface Written {
  id: string;
  path: string;
  dir: number;
}

interface JobRow {
  root_id: string;
  organization_id: string;
  kind: JobKind;
  reassign: number;
  from_acl: string | null;
  to_acl: string | null;
  batch: string | null;
  at: string | null;
}

/** What a new job records (`begin`). */
export type JobSpec =
  | { kind: "move"; reassign?: { from: string | null; to: string | null } }
  | { kind: "grant"; from: string | null; to: string | null }
  | { kind: "delete" | "restore"; batch: string; at: string }
  | { kind: "purge" };

const yieldToOthers = () => new Promise<void>((resolve) => setImmediate(resolve));

/** One slice's budget: `more()` while under SLICE_MS and `maxRows` rows; `rows` counts what was done. */
function sliceBudget(maxRows: number) {
  const started = performance.now();
  const budget = {
    rows: 0,
    more: () => budget.rows < maxRows && performance.now() - started < SLICE_MS,
  };
  return budget;
}
const folder = (id: string, path = ""): Pending => ({ id, path, chars: 0, levels: 0 });

export function createSubtreeJobs(
  db: Db,
  opts: {
    sliceRows?: number;
    /** Blobs a purge's slice left unreferenced, reclaimed between slices. */
    reclaim?: (hashes: string[]) => Promise<void>;
    /**
     * Drops the list of the access root `folderId`, in the last transaction
     * of a grant job that took the rows it governed to another root (the
     * folder's own list cleared): until then the rows not yet walked keep it.
     */
    dropList?: (org: string, folderId: string) => void;
  } = {},
) {
  const sqlite: Database.Database = db.$client;
  const sliceRows = opts.sliceRows ?? Number.POSITIVE_INFINITY;
  const childrenStmt = sqlite
    .prepare<[string, string]>(
      "SELECT rowid, id, type = 'directory', is_deleted, length(name), acl_id, watched_folder_id IS NOT NULL " +
        "FROM files WHERE organization_id = ? AND parent_id = ? ORDER BY rowid",
    )
    .raw(true);
  const batchOf = (children: Child[]) => JSON.stringify(children.map((c) => c[0]));
  const RETURNING = "RETURNING id, path, type = 'directory' AS dir";
  // A move: children take their parent's path and their own name (read in the statement: the
  // same whenever it runs), and across access roots the new root where they had the old one.
  const moveStmt = sqlite.prepare<[string, string, string], Written>(
    `UPDATE files SET path = ? || '/' || name WHERE rowid IN (SELECT value FROM json_each(?)) AND parent_id = ? ${RETURNING}`,
  );
  const moveReassignStmt = sqlite.prepare<[string, string | null, string | null, string, string], Written>(
    "UPDATE files SET path = ? || '/' || name, acl_id = CASE WHEN acl_id IS ? THEN ? ELSE acl_id END " +
      `WHERE rowid IN (SELECT value FROM json_each(?)) AND parent_id = ? ${RETURNING}`,
  );
  // A grant: children governed by the old root take the new one. Only those are descended into: a
  // folder with a list of its own governs its subtree, which the change does not reach.
  const grantStmt = sqlite.prepare<[string | null, string, string, string | null], Written>(
    `UPDATE files SET acl_id = ? WHERE rowid IN (SELECT value FROM json_each(?)) AND parent_id = ? AND acl_id IS ? ${RETURNING}`,
  );
  // A delete marks the live children with its batch (rows deleted before keep theirs, and their subtree).
  const deleteStmt = sqlite.prepare<[string, string, string, string, string], Written>(
    "UPDATE files SET is_deleted = 1, deleted_at = ?, delete_batch = ?, updated_at = ? " +
      `WHERE rowid IN (SELECT value FROM json_each(?)) AND parent_id = ? AND is_deleted = 0 ${RETURNING}`,
  );
  // A restore brings back the children of its batch; one whose name was taken meanwhile stays in the trash.
  const restoreStmt = sqlite.prepare<[string, string, string, string], Written>(
    "UPDATE OR IGNORE files SET is_deleted = 0, deleted_at = NULL, delete_batch = NULL, updated_at = ? " +
      `WHERE rowid IN (SELECT value FROM json_each(?)) AND parent_id = ? AND delete_batch = ? ${RETURNING}`,
  );
  // A purge removes a folder's rows from the bottom up: a folder goes once it is empty.
  const purgeChildrenStmt = sqlite
    .prepare<[string, string, number]>(
      "SELECT rowid, type = 'directory', id FROM files WHERE organization_id = ? AND parent_id = ? LIMIT ?",
    )
    .raw(true);
  const purgeStmt = sqlite.prepare<[string], { blob_hash: string | null }>(
    "DELETE FROM files WHERE rowid IN (SELECT value FROM json_each(?)) RETURNING blob_hash",
  );
  const purgeOneStmt = sqlite.prepare<[string], { blob_hash: string | null }>(
    "DELETE FROM files WHERE id = ? RETURNING blob_hash",
  );
  const insertStmt = sqlite.prepare<
    [string, string, JobKind, number, string | null, string | null, string | null, string | null, string]
  >(
    "INSERT OR REPLACE INTO subtree_jobs (root_id, organization_id, kind, reassign, from_acl, to_acl, batch, at, started_at) " +
      "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
  );
  const pathStmt = sqlite.prepare<[string], { path: string }>("SELECT path FROM files WHERE id = ?");
  const doneStmt = sqlite.prepare<[string]>("DELETE FROM subtree_jobs WHERE root_id = ?");
  const COLUMNS = "root_id, organization_id, kind, reassign, from_acl, to_acl, batch, at";
  const pendingStmt = sqlite.prepare<[string], JobRow>(
    `SELECT ${COLUMNS} FROM subtree_jobs WHERE organization_id = ? ORDER BY started_at`,
  );
  const allPendingStmt = sqlite.prepare<[], JobRow>(
    `SELECT ${COLUMNS} FROM subtree_jobs ORDER BY started_at`,
  );

  /**
   * A walk of the subtree below `root`, a folder at a time: each call of the
   * returned step runs one slice (SLICE_MS, or `sliceRows` rows) of
   * `each(children, of)` over batches of the rows directly below pending
   * folders (`each` returns the folders to descend into), and says whether
   * any is left. A folder's children are read when its turn comes, so a
   * folder of 100k entries spreads over several slices. `refresh(folder)`
   * runs before a slice handles a folder's children.
   */
  function walker(
    org: string,
    root: Pending,
    each: (children: Child[], of: Pending) => Pending[],
    refresh?: (folder: Pending) => void,
  ) {
    const folders: Pending[] = [root];
    let current: { of: Pending; children: Child[]; next: number } | undefined;
    return (): boolean => {
      const slice = sliceBudget(sliceRows);
      if (current) refresh?.(current.of);
      while (slice.more()) {
        if (!current) {
          const of = folders.pop();
          if (!of) return false;
          refresh?.(of);
          current = { of, children: childrenStmt.all(org, of.id) as Child[], next: 0 };
        }
        const { of, children } = current;
        while (current.next < children.length && slice.more()) {
          const n = Math.min(BATCH, sliceRows - slice.rows, children.length - current.next);
          folders.push(...each(children.slice(current.next, current.next + n), of));
          current.next += n;
          slice.rows += n;
        }
        if (current.next >= children.length) current = undefined;
      }
      return folders.length > 0 || current !== undefined;
    };
  }

  /** The folders among rows a walk wrote, to descend into. */
  const folders = (written: Written[]) => written.filter((r) => r.dir).map((r) => folder(r.id, r.path));

  /**
   * The walk of a move, delete or restore: one step per slice, `changed`
   * counting the rows it wrote.
   */
  function downward(job: JobRow, changed: { rows: number }): () => boolean {
    const org = job.organization_id;
    const write = (children: Child[], of: Pending): Pending[] => {
      const rowids = batchOf(children);
      const written =
        job.kind === "delete"
          ? deleteStmt.all(job.at!, job.batch!, job.at!, rowids, of.id)
          : job.kind === "restore"
            ? restoreStmt.all(job.at!, rowids, of.id, job.batch!)
            : job.kind === "grant"
              ? grantStmt.all(job.to_acl, rowids, of.id, job.from_acl)
              : job.reassign
                ? moveReassignStmt.all(of.path, job.from_acl, job.to_acl, rowids, of.id)
                : moveStmt.all(of.path, rowids, of.id);
      changed.rows += written.length;
      return folders(written);
    };
    const root = pathStmt.get(job.root_id);
    if (!root) return () => false;
    if (job.kind !== "move") return walker(org, folder(job.root_id), write);
    // A folder's path is read again in each transaction that writes its children: whatever
    // changed it between two (another walk), its children take its path as it is then.
    return walker(org, folder(job.root_id, root.path), write, (f) => {
      f.path = pathStmt.get(f.id)?.path ?? f.path;
    });
  }

  /**
   * The walk of a purge, from the bottom up: a folder's files go in batches,
   * its folders one after another (each emptied first), then the folder.
   * Blob hashes of the removed rows go to `hashes`.
   */
  function upward(job: JobRow, changed: { rows: number }, hashes: Set<string>): () => boolean {
    const org = job.organization_id;
    const stack = [job.root_id];
    const gone = (rows: { blob_hash: string | null }[]) => {
      changed.rows += rows.length;
      for (const r of rows) if (r.blob_hash) hashes.add(r.blob_hash);
    };
    return () => {
      const slice = sliceBudget(sliceRows);
      while (slice.more()) {
        const top = stack.at(-1);
        if (top === undefined) return false;
        const limit = Math.min(BATCH, sliceRows - slice.rows);
        const children = purgeChildrenStmt.all(org, top, limit) as [rowid: number, dir: number, id: string][];
        if (children.length === 0) {
          gone(purgeOneStmt.all(top));
          stack.pop();
          slice.rows++;
          continue;
        }
        const files = children.filter((c) => !c[1]).map((c) => c[0]);
        if (files.length > 0) gone(purgeStmt.all(JSON.stringify(files)));
        const dir = children.find((c) => c[1]);
        if (dir) stack.push(dir[2]);
        slice.rows += Math.max(1, files.length);
      }
      return stack.length > 0;
    };
  }

  /** One slice of a job per transaction; the last one also drops the job's record. */
  function stepper(job: JobRow, changed: { rows: number }, hashes: Set<string>): () => boolean {
    const step = job.kind === "purge" ? upward(job, changed, hashes) : downward(job, changed);
    return () =>
      writeTransaction(sqlite, () => {
        const more = step();
        if (!more) {
          doneStmt.run(job.root_id);
          if (job.kind === "grant" && job.from_acl === job.root_id)
            opts.dropList?.(job.organization_id, job.root_id);
        }
        return more;
      });
  }

  const reclaim = async (hashes: Set<string>) => {
    if (hashes.size === 0 || !opts.reclaim) return;
    const some = [...hashes];
    hashes.clear();
    await opts.reclaim(some);
  };

  /**
   * The live rows below `rootId` as a delete must know them (and, with
   * `mayChange`, whether the caller may change each, by its access root),
   * read a folder at a time with pauses between; a deleted folder hides
   * its subtree.
   */
  async function inspect(
    org: string,
    rootId: string,
    mayChange?: (aclId: string | null) => boolean,
  ): Promise<Inspection> {
    const out: Inspection = { rows: 0, unwritable: false, watched: false, extent: { chars: 0, levels: 0 } };
    const step = walker(org, folder(rootId), (children, of) => {
      const below: Pending[] = [];
      for (const [, id, dir, deleted, len, acl, watched] of children) {
        if (deleted) continue;
        out.rows++;
        if (watched) out.watched = true;
        if (mayChange && !mayChange(acl)) out.unwritable = true;
        const chars = of.chars + 1 + len;
        const levels = of.levels + 1;
        if (chars > out.extent.chars) out.extent.chars = chars;
        if (levels > out.extent.levels) out.extent.levels = levels;
        if (dir) below.push({ id, path: "", chars, levels });
      }
      return below;
    });
    while (step()) await yieldToOthers();
    return out;
  }

  return {
    inspect,

    /**
     * How far the live subtree of `rootId` reaches below it, read a folder
     * at a time with pauses between (a deleted folder hides its subtree).
     */
    async extent(org: string, rootId: string): Promise<Extent> {
      return (await inspect(org, rootId)).extent;
    },

    /** Records a job on the subtree of `rootId`: call in the transaction that changes the root, then `finish`. */
    begin(org: string, rootId: string, spec: JobSpec): void {
      const reassign = spec.kind === "move" ? spec.reassign : spec.kind === "grant" ? spec : undefined;
      const batch = spec.kind === "delete" || spec.kind === "restore" ? spec : undefined;
      insertStmt.run(
        rootId,
        org,
        spec.kind,
        reassign ? 1 : 0,
        reassign?.from ?? null,
        reassign?.to ?? null,
        batch?.batch ?? null,
        batch?.at ?? null,
        nowIso(),
      );
    },

    /**
     * Runs the organization's recorded jobs to their end, yielding between
     * transactions; answers how many rows they changed (removed, for a purge).
     */
    async finish(org: string): Promise<number> {
      const changed = { rows: 0 };
      const hashes = new Set<string>();
      for (const job of pendingStmt.all(org)) {
        const step = stepper(job, changed, hashes);
        while (step()) {
          await reclaim(hashes);
          await yieldToOthers();
        }
        await reclaim(hashes);
      }
      return changed.rows;
    },

    /**
     * At start-up, before serving: every job a stop interrupted, run to its
     * end at once; answers how many, and the blobs purges left unreferenced.
     */
    finishAllNow(): { jobs: number; hashes: string[] } {
      const all = allPendingStmt.all();
      const hashes = new Set<string>();
      for (const job of all) {
        const step = stepper(job, { rows: 0 }, hashes);
        while (step());
      }
      return { jobs: all.length, hashes: [...hashes] };
    },
  };
}

export type SubtreeJobs = ReturnType<typeof createSubtreeJobs>;
