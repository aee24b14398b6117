import { and, asc, count, desc, type SQL, sql } from "drizzle-orm";
import { movesWatch } from "../../db/change-watch.ts";
import type { Db } from "../../db/client.ts";
import { files } from "../../db/schema.ts";

type FileRow = typeof files.$inferSelect;

/**
 * Rows between two remembered positions of a long listing: a page past the
 * first few is found from the nearest one below it (an index seek and at
 * most this many entries walked) instead of walking every entry before it.
 */
export const POSITION_STEP = 1000;
/** Most listings (directory and view) whose totals and positions are kept. */
const MAX_KEPT = 4096;

/** The condition on a directory's visible children, for one shape (top or not, directories only, reads the top). */
export type ChildrenWhere = (top: boolean, onlyDirs: boolean, readsTop: boolean) => SQL | undefined;

/**
 * What is known of one listing until a row moves: its total, how many
 * directories it starts with, and per segment (1: directories, 0: files)
 * the name at every POSITION_STEP-th row of it.
 */
interface Known {
  total?: number;
  dirs?: number;
  marks: Record<0 | 1, Map<number, string>>;
}

type Params = {
  org: string;
  parent: string;
  acl: string;
  limit: number;
  offset: number;
};

/**
 * A directory's visible children, directories first then by name (case
 * folded, then exact: names are unique among a directory's live rows, so
 * the order is total). Totals and positions are kept until a write adds,
 * removes, renames, moves or re-grants a row (db/client.ts movesWatch:
 * hashing alone keeps them, though it empties the page caches every 64
 * files for as long as a big folder takes to hash). Counting 100k children
 * reads ~13 MB of index (~10 ms), and so did reaching their last page.
 */
export function createChildrenListing(db: Db, where: ChildrenWhere, step = POSITION_STEP) {
  const watch = movesWatch(db.$client);
  const known = new Map<string, Known>();
  const shapes = new Map<string, ReturnType<typeof prepare>>();
  const isDir = sql`(${files.type} = 'directory')`;
  const byName = [sql`${files.name} COLLATE NOCASE`, asc(files.name)];

  function prepare(top: boolean, onlyDirs: boolean, readsTop: boolean) {
    const all = where(top, onlyDirs, readsTop);
    const segment = and(all, sql`${isDir} = ${sql.placeholder("d")}`);
    // At or after name k in the segment's order, written so that SQLite seeks the index to k (a row
    // value `(name COLLATE NOCASE, name) >= (k, k)` is not used as a range and walks the segment).
    const fromK = and(
      segment,
      sql`${files.name} COLLATE NOCASE >= ${sql.placeholder("k")}`,
      sql`(${files.name} COLLATE NOCASE > ${sql.placeholder("k")} OR ${files.name} >= ${sql.placeholder("k")})`,
    );
    const page = (w: SQL | undefined, ordered: SQL[]) =>
      db
        .select()
        .from(files)
        .where(w)
        .orderBy(...ordered)
        .limit(sql.placeholder("limit"))
        .offset(sql.placeholder("offset"))
        .prepare();
    const nameAt = (w: SQL | undefined) =>
      db
        .select({ name: files.name })
        .from(files)
        .where(w)
        .orderBy(...byName)
        .limit(1)
        .offset(sql.placeholder("at"))
        .prepare();
    return {
      page: page(all, [desc(isDir), ...byName]),
      total: db.select({ n: count() }).from(files).where(all).prepare(),
      dirs: db.select({ n: count() }).from(files).where(segment).prepare(),
      segment: page(segment, byName),
      segmentFrom: page(fromK, byName),
      nameAt: nameAt(segment),
      nameFrom: nameAt(fromK),
    };
  }
  const shapeOf = (top: boolean, onlyDirs: boolean, readsTop: boolean) => {
    const key = `${top}/${onlyDirs}/${readsTop}`;
    let shape = shapes.get(key);
    if (!shape) shapes.set(key, (shape = prepare(top, onlyDirs, readsTop)));
    return shape;
  };
  const knownOf = (key: string): Known => {
    if (watch.changed() || known.size >= MAX_KEPT) known.clear();
    let k = known.get(key);
    if (!k) known.set(key, (k = { marks: { 0: new Map(), 1: new Map() } }));
    return k;
  };

  type Shape = ReturnType<typeof shapeOf>;

  /** The name at row `bucket * step` of segment `d`, from the nearest known one below; undefined past its end. */
  function mark(shape: Shape, k: Known, p: Params, d: 0 | 1, bucket: number): string | undefined {
    const marks = k.marks[d];
    const hit = marks.get(bucket);
    if (hit !== undefined) return hit;
    let below = bucket - 1;
    while (below > 0 && !marks.has(below)) below--;
    const row =
      below === 0
        ? shape.nameAt.get({ ...p, d: Number(d), at: bucket * step })
        : shape.nameFrom.get({ ...p, d: Number(d), k: marks.get(below), at: (bucket - below) * step });
    if (row) marks.set(bucket, row.name);
    return row?.name;
  }

  /** Up to `limit` rows of segment `d` from its row `offset`. */
  function segmentRows(
    shape: Shape,
    k: Known,
    p: Params,
    d: 0 | 1,
    offset: number,
    limit: number,
  ): FileRow[] {
    const bucket = Math.floor(offset / step);
    if (bucket === 0) return shape.segment.all({ ...p, d: Number(d), limit, offset });
    const name = mark(shape, k, p, d, bucket);
    if (name === undefined) return [];
    return shape.segmentFrom.all({ ...p, d: Number(d), k: name, limit, offset: offset - bucket * step });
  }

  return {
    /** One page of the children of `parentId` (null = the top) visible through `acl` (and the top's list if `readsTop`), and their total. */
    page(
      orgId: string,
      parentId: string | null,
      view: { readsTop: boolean; acl: string },
      page: { limit: number; offset: number },
      onlyDirs: boolean,
    ): { rows: FileRow[]; total: number } {
      const shape = shapeOf(parentId === null, onlyDirs, view.readsTop);
      const p: Params = { org: orgId, parent: parentId ?? "", acl: view.acl, ...page };
      const k = knownOf(`${orgId}|${parentId ?? ""}|${onlyDirs}|${view.readsTop}|${view.acl}`);
      let rows: FileRow[];
      if (page.offset < step) rows = shape.page.all(p);
      else {
        // Directories first (segment 1), then files (segment 0); a directory listing has the first alone.
        rows = [];
        let offset = page.offset;
        for (const d of onlyDirs ? ([1] as const) : ([1, 0] as const)) {
          const need = page.limit - rows.length;
          if (need === 0) break;
          if (d === 1 && !onlyDirs) {
            k.dirs ??= shape.dirs.get({ ...p, d: 1 })?.n ?? 0;
            if (offset >= k.dirs) {
              offset -= k.dirs;
              continue;
            }
          }
          rows.push(...segmentRows(shape, k, p, d, offset, need));
          offset = 0;
        }
      }
      // A short page that is not past the end ends the directory: its total is known without a count.
      if (rows.length < page.limit && (rows.length > 0 || page.offset === 0))
        return { rows, total: page.offset + rows.length };
      k.total ??= shape.total.get(p)?.n ?? 0;
      return { rows, total: k.total };
    },
  };
}
