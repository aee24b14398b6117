import { eq, inArray } from "drizzle-orm";
import type { Db } from "../../db/client.ts";
import { fileTags, tags } from "../../db/schema.ts";

/** A tag as clients see it. */
export interface TagDto {
  id: string;
  name: string;
  color: string;
  created_at: string;
}

/** The tags of many files at once (one query), for File records. */
export function tagsForFiles(db: Db, fileIds: readonly string[]): Map<string, TagDto[]> {
  const out = new Map<string, TagDto[]>();
  if (fileIds.length === 0) return out;
  const rows = [];
  // Chunked: SQLite caps bound parameters per statement.
  for (let i = 0; i < fileIds.length; i += 500) {
    rows.push(
      ...db
        .select({
          file_id: fileTags.file_id,
          id: tags.id,
          name: tags.name,
          color: tags.color,
          created_at: tags.created_at,
        })
        .from(fileTags)
        .innerJoin(tags, eq(tags.id, fileTags.tag_id))
        .where(inArray(fileTags.file_id, fileIds.slice(i, i + 500) as string[]))
        .orderBy(tags.name)
        .all(),
    );
  }
  for (const { file_id, ...tag } of rows) {
    const list = out.get(file_id) ?? [];
    list.push(tag);
    out.set(file_id, list);
  }
  return out;
}
