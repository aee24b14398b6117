import type Database from "better-sqlite3";
import { type Db, writeTransaction } from "../../db/client.ts";
import { nowIso } from "../../platform/ids.ts";

/**
 * The rows below a moved or renamed folder, brought in step a folder at a
 * time. Every row stores its full path (and its access root, `acl_id`), so
 * moving a folder rewrites every row below it: in one transaction that held
 * the server's only thread for seconds at 100k+ rows (a 166k-row folder of
 * the search bench: 3-5 s, every other request waiting), and anyone who may
 * rename a large folder could do it again and again.
 *
 * The move itself (the folder's own row) commits at once with a row in
 * `subtree_moves`; then `finish` walks the subtree from the folder down, in
 * transactions of at most SLICE_MS (or `sliceRows` rows), yielding to other
 * requests in between, and deletes that row in the last one. Each row takes
 * its parent's current path and its own name, so the walk is idempotent: a
 * start finishes what a stop interrupted (`finishAllNow`), and whatever is
 * added below meanwhile is either written with its parent's new path or
 * walked. Until the walk is done, rows below it may show their old path
 * (and, across access roots, their old acl id: the move takes effect for
 * them when it is done); the request that moved the folder answers after the
 * walk, so its caller sees the whole move.
 */

/** Longest a transaction of the walk holds the write lock and the thread. */
const SLICE_MS = 20;

/** Where a subtree's deepest and longest rows are, below its root. */
export interface Extent {
  /** Characters the longest path below adds to the root's. */
  chars: number;
  /** Levels below the root. */
  levels: number;
}

/** A row directly below a folder: rowid, id, whether a directory, whether deleted, name length. */
type Child = [rowid: number, id: string, dir: number, deleted: number, len: number];

/** A folder waiting to be walked: its id, its path (writes) or extent so far (reads). */
interface Pending {
  id: string;
  path: string;
  chars: number;
  levels: number;
}

/** A row the walk wrote: its id, new path, and whether a directory. */
interface Written {
  id: string;
  path: string;
  dir: number;
}

interface MoveRow {
  root_id: string;
  organization_id: string;
  reassign: number;
  from_acl: string | null;
  to_acl: string | null;
}

/**
 * Rows a statement of the walk writes at most. A statement per row cost
 * ~30 µs a row on the search bench's 1M-row database (each execution sets
 * up the search index's update trigger again); one per batch, about half.
 */
const BATCH = 256;

const yieldToOthers = () => new Promise<void>((resolve) => setImmediate(resolve));

export function createSubtreeMoves(db: Db, opts: { sliceRows?: number } = {}) {
  const sqlite: Database.Database = db.$client;
  const sliceRows = opts.sliceRows ?? Number.POSITIVE_INFINITY;
  const childrenStmt = sqlite
    .prepare<[string, string]>(
      "SELECT rowid, id, type = 'directory', is_deleted, length(name) FROM files " +
        "WHERE organization_id = ? AND parent_id = ? ORDER BY rowid",
    )
    .raw(true);
  // Children take their parent's path and their own name (read in the statement: the same whenever it runs).
  const repathStmt = sqlite.prepare<[string, string, string], Written>(
    "UPDATE files SET path = ? || '/' || name WHERE rowid IN (SELECT value FROM json_each(?)) AND parent_id = ? " +
      "RETURNING id, path, type = 'directory' AS dir",
  );
  const repathReassignStmt = sqlite.prepare<[string, string | null, string | null, string, string], Written>(
    "UPDATE files SET path = ? || '/' || name, acl_id = CASE WHEN acl_id IS ? THEN ? ELSE acl_id END " +
      "WHERE rowid IN (SELECT value FROM json_each(?)) AND parent_id = ? " +
      "RETURNING id, path, type = 'directory' AS dir",
  );
  const insertStmt = sqlite.prepare<[string, string, number, string | null, string | null, string]>(
    "INSERT OR REPLACE INTO subtree_moves (root_id, organization_id, reassign, from_acl, to_acl, started_at) VALUES (?, ?, ?, ?, ?, ?)",
  );
  const pathStmt = sqlite.prepare<[string], { path: string }>("SELECT path FROM files WHERE id = ?");
  const doneStmt = sqlite.prepare<[string]>("DELETE FROM subtree_moves WHERE root_id = ?");
  const pendingStmt = sqlite.prepare<[string], MoveRow>(
    "SELECT root_id, organization_id, reassign, from_acl, to_acl FROM subtree_moves WHERE organization_id = ?",
  );
  const allPendingStmt = sqlite.prepare<[], MoveRow>(
    "SELECT root_id, organization_id, reassign, from_acl, to_acl FROM subtree_moves",
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
      const started = performance.now();
      let rows = 0;
      const more = () => rows < sliceRows && performance.now() - started < SLICE_MS;
      if (current) refresh?.(current.of);
      while (more()) {
        if (!current) {
          const of = folders.pop();
          if (!of) return false;
          refresh?.(of);
          current = { of, children: childrenStmt.all(org, of.id) as Child[], next: 0 };
        }
        const { of, children } = current;
        while (current.next < children.length && more()) {
          const n = Math.min(BATCH, sliceRows - rows, children.length - current.next);
          folders.push(...each(children.slice(current.next, current.next + n), of));
          current.next += n;
          rows += n;
        }
        if (current.next >= children.length) current = undefined;
      }
      return folders.length > 0 || current !== undefined;
    };
  }

  /** One slice of writes per transaction; the last one also drops the move's record. */
  function writer(m: MoveRow): () => boolean {
    const root = pathStmt.get(m.root_id);
    // A folder's path is read again in each transaction that writes its children: whatever
    // changed it between two (another walk), its children take its path as it is then.
    const step = root
      ? walker(
          m.organization_id,
          { id: m.root_id, path: root.path, chars: 0, levels: 0 },
          (children, of) => {
            const rowids = JSON.stringify(children.map((c) => c[0]));
            const written = m.reassign
              ? repathReassignStmt.all(of.path, m.from_acl, m.to_acl, rowids, of.id)
              : repathStmt.all(of.path, rowids, of.id);
            return written.filter((r) => r.dir).map((r) => ({ id: r.id, path: r.path, chars: 0, levels: 0 }));
          },
          (folder) => {
            folder.path = pathStmt.get(folder.id)?.path ?? folder.path;
          },
        )
      : () => false;
    return () =>
      writeTransaction(sqlite, () => {
        const more = step();
        if (!more) doneStmt.run(m.root_id);
        return more;
      });
  }

  return {
    /**
     * How far the live subtree of `rootId` reaches below it, read a folder
     * at a time with pauses between (a deleted folder hides its subtree).
     */
    async extent(org: string, rootId: string): Promise<Extent> {
      const out: Extent = { chars: 0, levels: 0 };
      const step = walker(org, { id: rootId, path: "", chars: 0, levels: 0 }, (children, of) => {
        const below: Pending[] = [];
        for (const [, id, dir, deleted, len] of children) {
          if (deleted) continue;
          const chars = of.chars + 1 + len;
          const levels = of.levels + 1;
          if (chars > out.chars) out.chars = chars;
          if (levels > out.levels) out.levels = levels;
          if (dir) below.push({ id, path: "", chars, levels });
        }
        return below;
      });
      while (step()) await yieldToOthers();
      return out;
    },

    /**
     * Records that the subtree of `rootId` must follow its root's new path
     * (and, with `reassign`, take `to` where its acl id was `from`): call in
     * the move's transaction, then `finish`.
     */
    begin(org: string, rootId: string, reassign?: { from: string | null; to: string | null }): void {
      insertStmt.run(rootId, org, reassign ? 1 : 0, reassign?.from ?? null, reassign?.to ?? null, nowIso());
    },

    /** Brings the subtrees of the organization's recorded moves in step, yielding between transactions. */
    async finish(org: string): Promise<void> {
      for (const m of pendingStmt.all(org)) {
        const step = writer(m);
        while (step()) await yieldToOthers();
      }
    },

    /** At start-up, before serving: every move a stop interrupted, finished at once. */
    finishAllNow(): number {
      const all = allPendingStmt.all();
      for (const m of all) {
        const step = writer(m);
        while (step());
      }
      return all.length;
    },
  };
}

export type SubtreeMoves = ReturnType<typeof createSubtreeMoves>;
