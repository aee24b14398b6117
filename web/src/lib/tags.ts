import { api } from "./api.ts";
import type { FileRec, FileTags, Tag, TagList } from "./types.ts";

/** Colours offered to new tags, picked in turn (all readable as chips in light and dark). */
const PALETTE = ["#2563eb", "#16a34a", "#d97706", "#dc2626", "#7c3aed", "#0891b2", "#db2777", "#65a30d"];

export async function listTags(): Promise<Tag[]> {
  return (await api<TagList>("GET", "/tags")).tags;
}

export function createTag(name: string, existing: number): Promise<Tag> {
  return api<Tag>("POST", "/tags", { body: { name, color: PALETTE[existing % PALETTE.length] } });
}

/** Attaches a tag and returns the file's tags as the server now has them. */
export async function attachTag(f: FileRec, tag: Tag): Promise<Tag[]> {
  const r = await api<FileTags>("POST", `/files/${encodeURIComponent(f.id)}/tags`, {
    body: { tag_ids: [tag.id] },
  });
  return r.tags;
}

export async function detachTag(f: FileRec, tag: Tag): Promise<Tag[]> {
  await api("DELETE", `/files/${encodeURIComponent(f.id)}/tags/${encodeURIComponent(tag.id)}`);
  return (f.tags ?? []).filter((t) => t.id !== tag.id);
}
