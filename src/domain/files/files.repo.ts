import type { Statement } from "better-sqlite3";
import { and, count, eq, getTableColumns, inArray, isNull, type SQL, sql } from "drizzle-orm";
import type { Db } from "../../db/client.ts";
import { blobs, files } from "../../db/schema.ts";
import { rowIndexer } from "../../db/search-index.ts";
import { type AccessView, aclCondition } from "../access/access.ts";
import type { TagDto } from "../tags/tags.repo.ts";
import { createChildrenListing } from "./listing.ts";

export type FileRow = typeof files.$inferSelect;

/** The columns a listing of entries needs (no booleans: raw SQLite values). */
export type ListingRow = Pick<
  FileRow,
  | "id"
  | "name"
  | "type"
  | "size"
  | "mime_type"
  | "hash"
  | "host_mtime_ms"
  | "created_at"
  | "updated_at"
  | "home_of"
  | "watched_folder_id"
  | "acl_id"
>;
const LISTING_COLUMNS =
  "id, name, type, size, mime_type, hash, host_mtime_ms, created_at, updated_at, home_of, watched_folder_id, acl_id";
export type NewFileRow = typeof files.$inferInsert;

/** A row's tags as a JSON array of TagDto, by name (the order tagsForFiles gives); the outer row named in full (drizzle leaves a single table's columns unqualified, which the subquery would take for its own). */
const TAGS_JSON = sql<string>`(SELECT json_group_array(json_object('id', t.id, 'name', t.name, 'color', t.color, 'created_at', t.created_at) ORDER BY t.name) FROM file_tags ft JOIN tags t ON t.id = ft.tag_id WHERE ft.file_id = "files"."id")`;

/** Children of `parentId`; the top's children exclude personal folders (they have a name space of their own). */
const parentIs = (parentId: string | null) =>
  parentId === null ? and(isNull(files.parent_id), isNull(files.home_of)) : eq(files.parent_id, parentId);

/**
 * Rows whose access root is in `roots` (a JSON array of folder ids, or a
 * placeholder for one), or under the top's list when `top` (the viewer holds
 * the level there).
 */
const aclIn = (top: boolean, roots: unknown, column: SQL = sql`${files.acl_id}`) =>
  top
    ? sql`(${column} IS NULL OR ${column} IN (SELECT value FROM json_each(${roots})))`
    : sql`${column} IN (SELECT value FROM json_each(${roots}))`;

/** Rows the viewer may read (folder grants), checked in the query. */
export const readableBy = (v: AccessView, need: 1 | 2 | 3 = 1, column?: SQL) =>
  aclIn(v.top >= need, v.atLeast[need], column);

/**
 * The organization's rows, as a check on rows found by id: with a plain
 * equality SQLite would rather walk an index led by the organization (all of
 * its rows: 1M at a NAS's size) than look up a list of ids by primary key.
 */
const sameOrganization = (orgId: string) => sql`+${files.organization_id} = ${orgId}`;

/**
 * The queries of the tree. Every one takes the organization id, so no
 * caller can reach another organization's rows by id.
 */
export function createFilesRepo(db: Db, opts: { positionStep?: number } = {}) {
  const sqlite = db.$client;
  const indexRows = rowIndexer(sqlite);
  /** listingAfter's statements, by their text. */
  const listingPages = new Map<string, Statement<unknown[], ListingRow & { _rowid: number }>>();
  /** readableChildIds' statements, one per shape of access condition. */
  const childIdPages = new Map<string, Statement<unknown[], { r: number; id: string; type: string }>>();
  const subtreeStmt = sqlite.prepare<[string, string], { id: string; depth: number }>(`
    WITH RECURSIVE sub(id, depth) AS (
      SELECT id, 0 FROM files WHERE id = ? AND organization_id = ?
      UNION ALL
      SELECT f.id, sub.depth + 1 FROM files f JOIN sub ON f.parent_id = sub.id
    ) SELECT id, depth FROM sub`);
  // The live subtree only (a deleted directory hides its own), stopped after `limit` rows.
  const ancestorsStmt = sqlite.prepare<[string, string], { id: string }>(`
    WITH RECURSIVE up(id, parent_id) AS (
      SELECT id, parent_id FROM files WHERE id = ? AND organization_id = ?
      UNION ALL
      SELECT f.id, f.parent_id FROM files f JOIN up ON f.id = up.parent_id
    ) SELECT id FROM up`);
  const liveChildOf = db
    .select()
    .from(files)
    .where(
      and(
        eq(files.organization_id, sql.placeholder("org")),
        // files_live_name_uq's expression, so the lookup is one probe of that index.
        sql`(CASE WHEN ${files.parent_id} IS NOT NULL THEN ${files.parent_id} WHEN ${files.home_of} IS NOT NULL THEN 'home:' || ${files.home_of} ELSE '' END) = ${sql.placeholder("parent")}`,
        eq(files.parent_id, sql.placeholder("parent")),
        eq(files.name, sql.placeholder("name")),
        eq(files.is_deleted, false),
      ),
    )
    .prepare();
  const liveTopChild = db
    .select()
    .from(files)
    .where(
      and(
        eq(files.organization_id, sql.placeholder("org")),
        parentIs(null),
        eq(files.name, sql.placeholder("name")),
        eq(files.is_deleted, false),
      ),
    )
    .prepare();
  // Prepared once: every request of the tree starts with a lookup by id.
  const byId = and(eq(files.id, sql.placeholder("id")), eq(files.organization_id, sql.placeholder("org")));
  const getAny = db.select().from(files).where(byId).prepare();
  const getLive = db
    .select()
    .from(files)
    .where(and(byId, eq(files.is_deleted, false)))
    .prepare();
  // A File record with its tags in one statement: each statement opens a read transaction (~5 µs of locking here).
  const getLiveTagged = db
    .select({ ...getTableColumns(files), tags_json: TAGS_JSON })
    .from(files)
    .where(and(byId, eq(files.is_deleted, false)))
    .prepare();
  /** Directory pages (listing.ts): the listing is the UI's most frequent request. */
  const listing = createChildrenListing(
    db,
    (top, onlyDirs, readsTop) =>
      and(
        eq(files.organization_id, sql.placeholder("org")),
        top
          ? and(isNull(files.parent_id), isNull(files.home_of))
          : eq(files.parent_id, sql.placeholder("parent")),
        eq(files.is_deleted, false),
        onlyDirs ? eq(files.type, "directory") : undefined,
        aclIn(readsTop, sql.placeholder("acl")),
      ),
    opts.positionStep,
  );

  return {
    /** A row by id in the organization; live only unless `withDeleted`. */
    get(orgId: string, id: string, withDeleted = false): FileRow | undefined {
      return (withDeleted ? getAny : getLive).get({ id, org: orgId });
    },

    /** A live row by id in the organization, with its tags (by name), for a File record. */
    getLiveTagged(orgId: string, id: string): { row: FileRow; tags: TagDto[] } | undefined {
      const hit = getLiveTagged.get({ id, org: orgId });
      if (!hit) return undefined;
      const { tags_json, ...row } = hit;
      return { row, tags: JSON.parse(tags_json) as TagDto[] };
    },

    /** The live child of `parentId` (null = top) named `name`. Prepared: every create, move and path lookup asks. */
    liveChild(orgId: string, parentId: string | null, name: string): FileRow | undefined {
      return parentId === null
        ? liveTopChild.get({ org: orgId, name })
        : liveChildOf.get({ org: orgId, parent: parentId, name });
    },

    /**
     * Up to `limit` live children the viewer may read, in rowid order after
     * `after` (0: from the first), with the last rowid read: a whole folder
     * a page at a time, each page a seek in files_parent_idx (whose entries
     * of one parent are in rowid order), never a sort of all its children.
     */
    listingAfter(
      orgId: string,
      viewer: AccessView,
      parentId: string | null,
      after: number,
      limit: number,
    ): { rows: ListingRow[]; last: number } {
      const acl = aclCondition(viewer, "acl_id");
      const where = parentId === null ? "parent_id IS NULL AND home_of IS NULL" : "parent_id = ?";
      // Four shapes (top or not, the viewer reading the top's list or not), each prepared once.
      const text = `SELECT rowid AS _rowid, ${LISTING_COLUMNS} FROM files INDEXED BY files_parent_idx
           WHERE ${where} AND rowid > ? AND organization_id = ? AND is_deleted = 0 AND ${acl.sql}
           ORDER BY rowid LIMIT ?`;
      let stmt = listingPages.get(text);
      if (!stmt) {
        stmt = sqlite.prepare<unknown[], ListingRow & { _rowid: number }>(text);
        listingPages.set(text, stmt);
      }
      const rows = stmt.all(...(parentId === null ? [] : [parentId]), after, orgId, ...acl.params, limit);
      return {
        rows: rows.map(({ _rowid, ...row }) => row),
        last: rows.at(-1)?._rowid ?? after,
      };
    },

    /** Live children the viewer may read, directories first then by name; `onlyDirs` for directory listings. */
    children(
      orgId: string,
      viewer: AccessView,
      parentId: string | null,
      page: { limit: number; offset: number },
      onlyDirs = false,
    ) {
      return listing.page(
        orgId,
        parentId,
        { readsTop: viewer.top >= 1, acl: viewer.atLeast[1] },
        page,
        onlyDirs,
      );
    },

    /** Number of live immediate children of each id that the viewer may read. */
    childCounts(orgId: string, viewer: AccessView, ids: readonly string[]): Map<string, number> {
      const out = new Map<string, number>();
      for (let i = 0; i < ids.length; i += 500) {
        const rows = db
          .select({ parent: files.parent_id, n: count() })
          .from(files)
          .where(
            and(
              eq(files.organization_id, orgId),
              inArray(files.parent_id, ids.slice(i, i + 500) as string[]),
              eq(files.is_deleted, false),
              readableBy(viewer),
            ),
          )
          .groupBy(files.parent_id)
          .all();
        for (const r of rows) if (r.parent) out.set(r.parent, r.n);
      }
      return out;
    },

    /** Every row under `rootId` (itself included, deleted ones too) with its depth. */
    subtree(orgId: string, rootId: string): { id: string; depth: number }[] {
      return subtreeStmt.all(rootId, orgId);
    },

    /**
     * Up to `limit` live children of `parentId` readable under `acl` (on
     * `f.acl_id`), in rowid order after `after`: one folder of a subtree
     * walk a page at a time (tree.ts readableSubtree), each page a seek in
     * files_parent_idx. `dirs`: directories only.
     */
    readableChildIds(
      orgId: string,
      parentId: string,
      acl: { sql: string; params: unknown[] },
      after: number,
      limit: number,
      dirs = false,
    ): { r: number; id: string; type: string }[] {
      const text = `SELECT f.rowid AS r, f.id, f.type FROM files f INDEXED BY files_parent_idx
          WHERE f.parent_id = ? AND f.rowid > ? AND f.organization_id = ? AND f.is_deleted = 0 AND ${acl.sql}${dirs ? " AND f.type = 'directory'" : ""}
          ORDER BY f.rowid LIMIT ?`;
      let stmt = childIdPages.get(text);
      if (!stmt) {
        stmt = sqlite.prepare<unknown[], { r: number; id: string; type: string }>(text);
        childIdPages.set(text, stmt);
      }
      return stmt.all(parentId, after, orgId, ...acl.params, limit);
    },

    /** Full rows of many ids, in no particular order. */
    rowsByIds(orgId: string, ids: readonly string[]): FileRow[] {
      const out: FileRow[] = [];
      for (let i = 0; i < ids.length; i += 500) {
        out.push(
          ...db
            .select()
            .from(files)
            .where(and(sameOrganization(orgId), inArray(files.id, ids.slice(i, i + 500) as string[])))
            .all(),
        );
      }
      return out;
    },

    /** True when `ancestorId` is `id` itself or one of its ancestors. */
    isSelfOrAncestor(orgId: string, ancestorId: string, id: string): boolean {
      return ancestorsStmt.all(id, orgId).some((r) => r.id === ancestorId);
    },

    /** Inserts a row and adds it to the search index, in one transaction (db/search-index.ts). */
    insert(row: NewFileRow): void {
      sqlite.transaction(() => {
        const { lastInsertRowid } = db.insert(files).values(row).run();
        indexRows([lastInsertRowid]);
      })();
    },

    update(orgId: string, id: string, patch: Partial<NewFileRow>): void {
      db.update(files)
        .set(patch)
        .where(and(eq(files.id, id), eq(files.organization_id, orgId)))
        .run();
    },

    /** Makes the rows of an unfinished copy (`batch`) live, all at once. */
    publishBatch(orgId: string, batch: string): number {
      return db
        .update(files)
        .set({ is_deleted: false, deleted_at: null, delete_batch: null })
        .where(and(eq(files.organization_id, orgId), eq(files.delete_batch, batch)))
        .run().changes;
    },

    /** Removes copies a crash interrupted (their rows are hidden, batch "copy:…"); returns how many rows. */
    dropUnfinishedCopies(): number {
      return sqlite.prepare("DELETE FROM files WHERE delete_batch LIKE 'copy:%'").run().changes;
    },

    /** Marks live rows among `ids` deleted with one batch id. */
    softDelete(orgId: string, ids: readonly string[], batch: string, at: string): number {
      let n = 0;
      for (let i = 0; i < ids.length; i += 500) {
        n += db
          .update(files)
          .set({ is_deleted: true, deleted_at: at, delete_batch: batch, updated_at: at })
          .where(
            and(
              sameOrganization(orgId),
              inArray(files.id, ids.slice(i, i + 500) as string[]),
              eq(files.is_deleted, false),
            ),
          )
          .run().changes;
      }
      return n;
    },

    /** Brings back the rows of `ids` deleted in `batch`. */
    restore(orgId: string, ids: readonly string[], batch: string, at: string): void {
      for (let i = 0; i < ids.length; i += 500) {
        db.update(files)
          .set({ is_deleted: false, deleted_at: null, delete_batch: null, updated_at: at })
          .where(
            and(
              sameOrganization(orgId),
              inArray(files.id, ids.slice(i, i + 500) as string[]),
              eq(files.delete_batch, batch),
            ),
          )
          .run();
      }
    },

    /**
     * Deleted rows that head a delete (their parent is live, at the top, or
     * was deleted in another batch), newest first, that the viewer may act
     * on: where it manages, or its own items where it may write.
     */
    trash(orgId: string, viewer: AccessView, userId: string, page: { limit: number; offset: number }) {
      const acl = (need: 2 | 3) => readableBy(viewer, need, sql.raw("f.acl_id"));
      const owner = sql`(${acl(3)} OR (f.owner_id = ${userId} AND ${acl(2)}))`;
      const base = sql`FROM files f LEFT JOIN files p ON p.id = f.parent_id
        WHERE f.organization_id = ${orgId} AND f.is_deleted = 1 AND ${owner}
          AND (p.id IS NULL OR p.is_deleted = 0 OR p.delete_batch IS NOT f.delete_batch)
          AND (f.delete_batch IS NULL OR f.delete_batch NOT LIKE 'copy:%')`;
      const ids = db.all<{ id: string }>(
        sql`SELECT f.id ${base} ORDER BY f.deleted_at DESC, f.name LIMIT ${page.limit} OFFSET ${page.offset}`,
      );
      const total = db.get<{ n: number }>(sql`SELECT count(*) AS n ${base}`)?.n ?? 0;
      const rows = this.rowsByIds(
        orgId,
        ids.map((r) => r.id),
      );
      const order = new Map(ids.map((r, i) => [r.id, i]));
      rows.sort((a, b) => (order.get(a.id) ?? 0) - (order.get(b.id) ?? 0));
      return { rows, total };
    },

    /** Deletes rows for good (children go with them by foreign key); returns their blob hashes. */
    purge(orgId: string, rootId: string): string[] {
      const ids = this.subtree(orgId, rootId).map((r) => r.id);
      const hashes = new Set<string>();
      for (const r of this.rowsByIds(orgId, ids)) if (r.blob_hash) hashes.add(r.blob_hash);
      db.delete(files)
        .where(and(eq(files.id, rootId), eq(files.organization_id, orgId)))
        .run();
      return [...hashes];
    },

    /** Records a stored blob (idempotent). */
    addBlob(hash: string, size: number, at: string): void {
      db.insert(blobs).values({ hash, size, created_at: at }).onConflictDoNothing().run();
    },

    /** Ids of rows at the top of the organization's tree (live, deleted, personal folders), at most `limit`. */
    topLevelIds(orgId: string, limit: number): string[] {
      return db
        .select({ id: files.id })
        .from(files)
        .where(and(eq(files.organization_id, orgId), isNull(files.parent_id)))
        .limit(limit)
        .all()
        .map((r) => r.id);
    },

    /** True when any row of any organization still uses the blob. */
    blobInUse(hash: string): boolean {
      return !!db.select({ id: files.id }).from(files).where(eq(files.blob_hash, hash)).limit(1).get();
    },

    removeBlob(hash: string): void {
      db.delete(blobs).where(eq(blobs.hash, hash)).run();
    },
  };
}

export type FilesRepo = ReturnType<typeof createFilesRepo>;
