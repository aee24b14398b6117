import type { z } from "@hono/zod-openapi";
import type { Statement } from "better-sqlite3";
import { and, eq, inArray, sql } from "drizzle-orm";
import type { Db } from "../../db/client.ts";
import { files, fileTags, tags } from "../../db/schema.ts";
import type { TagSchema } from "../files/files.schemas.ts";

/** A tag as clients see it: the shape of TagSchema. */
export type TagDto = z.output<typeof TagSchema>;

/** Tags of a JSON array of file ids, by name: one prepared statement for any count (per database). */
const TAGS_OF = `SELECT ft.file_id AS file_id, t.id AS id, t.name AS name, t.color AS color, t.created_at AS created_at
  FROM file_tags ft JOIN tags t ON t.id = ft.tag_id
  WHERE ft.file_id IN (SELECT value FROM json_each(?)) ORDER BY t.name`;
const tagsOfStmts = new WeakMap<object, Statement<[string], TagDto & { file_id: string }>>();

/**
 * The tags of many files at once (one query), for File records. Prepared
 * once per database with the ids as one JSON parameter: every File answer
 * calls this, and building the query per call cost as much as the rest of a
 * GET /files/:id.
 */
export function tagsForFiles(db: Db, fileIds: readonly string[]): Map<string, TagDto[]> {
  const out = new Map<string, TagDto[]>();
  if (fileIds.length === 0) return out;
  let stmt = tagsOfStmts.get(db.$client);
  if (!stmt) {
    stmt = db.$client.prepare(TAGS_OF);
    tagsOfStmts.set(db.$client, stmt);
  }
  for (const { file_id, ...tag } of stmt.all(JSON.stringify(fileIds))) {
    const list = out.get(file_id);
    if (list) list.push(tag);
    else out.set(file_id, [tag]);
  }
  return out;
}

const tagColumns = { id: tags.id, name: tags.name, color: tags.color, created_at: tags.created_at };

/** Tag queries of one organization at a time; every query is scoped by `organizationId`. */
export function createTagsRepo(db: Db) {
  return {
    list(organizationId: string): TagDto[] {
      return db
        .select(tagColumns)
        .from(tags)
        .where(eq(tags.organization_id, organizationId))
        .orderBy(sql`${tags.name} COLLATE NOCASE`)
        .all();
    },
    get(organizationId: string, id: string): TagDto | undefined {
      return db
        .select(tagColumns)
        .from(tags)
        .where(and(eq(tags.organization_id, organizationId), eq(tags.id, id)))
        .get();
    },
    /** The tags among `ids` that exist in the organization. */
    existing(organizationId: string, ids: readonly string[]): string[] {
      if (ids.length === 0) return [];
      return db
        .select({ id: tags.id })
        .from(tags)
        .where(and(eq(tags.organization_id, organizationId), inArray(tags.id, ids as string[])))
        .all()
        .map((r) => r.id);
    },
    /** A tag of the organization with this name, ignoring case (names are unique per org that way). */
    byName(organizationId: string, name: string): TagDto | undefined {
      return db
        .select(tagColumns)
        .from(tags)
        .where(and(eq(tags.organization_id, organizationId), sql`${tags.name} = ${name} COLLATE NOCASE`))
        .get();
    },
    insert(organizationId: string, tag: TagDto): void {
      db.insert(tags)
        .values({ ...tag, organization_id: organizationId })
        .run();
    },
    update(organizationId: string, id: string, patch: { name?: string; color?: string }): void {
      db.update(tags)
        .set(patch)
        .where(and(eq(tags.organization_id, organizationId), eq(tags.id, id)))
        .run();
    },
    /** Deletes the tag; its attachments go with it (ON DELETE CASCADE). */
    delete(organizationId: string, id: string): boolean {
      const r = db
        .delete(tags)
        .where(and(eq(tags.organization_id, organizationId), eq(tags.id, id)))
        .run();
      return r.changes > 0;
    },
    /** The live file `fileId` of the organization (its grants decide who may see it). */
    liveFile(organizationId: string, fileId: string): { id: string; acl_id: string | null } | undefined {
      return db
        .select({ id: files.id, acl_id: files.acl_id })
        .from(files)
        .where(
          and(eq(files.organization_id, organizationId), eq(files.id, fileId), eq(files.is_deleted, false)),
        )
        .get();
    },
    /** Attaches tags to a file; already attached ones are left as they are. */
    attach(fileId: string, tagIds: readonly string[], at: string): void {
      if (tagIds.length === 0) return;
      db.insert(fileTags)
        .values(tagIds.map((tag_id) => ({ file_id: fileId, tag_id, created_at: at })))
        .onConflictDoNothing()
        .run();
    },
    detach(fileId: string, tagId: string): boolean {
      return (
        db
          .delete(fileTags)
          .where(and(eq(fileTags.file_id, fileId), eq(fileTags.tag_id, tagId)))
          .run().changes > 0
      );
    },
  };
}

export type TagsRepo = ReturnType<typeof createTagsRepo>;
