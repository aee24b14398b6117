import { api, raw } from "./api.ts";
import type { Directory, FileList, FileRec } from "./types.ts";

/** One page of a folder's children (undefined = the top of the tree). */
export function listChildren(
  parentId: string | undefined,
  limit: number,
  offset: number,
  signal?: AbortSignal,
) {
  return parentId
    ? api<FileList>("GET", `/directories/${encodeURIComponent(parentId)}/children`, {
        query: { limit, offset },
        signal,
      })
    : api<FileList>("GET", "/files", { query: { limit, offset }, signal });
}

/**
 * Every child of a folder, page after page; `onPage` sees the growing list so
 * a 10,000-entry folder shows its first rows at once.
 */
export async function listAll(
  parentId: string | undefined,
  onPage: (files: FileRec[], total: number) => void,
  signal?: AbortSignal,
): Promise<FileRec[]> {
  const all: FileRec[] = [];
  let pageSize = 1000;
  for (;;) {
    let page: FileList;
    try {
      page = await listChildren(parentId, pageSize, all.length, signal);
    } catch (err) {
      // A server with a lower page cap answers 400: ask for smaller pages.
      if (pageSize > 100 && (err as { status?: number }).status === 400) {
        pageSize = 100;
        continue;
      }
      throw err;
    }
    all.push(...page.files);
    onPage(all, page.total);
    if (page.files.length === 0 || all.length >= page.total) return all;
  }
}

/**
 * Every subfolder of a folder (undefined = the top), a page of 1000 at a
 * time from the directories listing: a folder picker in a folder of 100,000
 * photos asks for its few subfolders, not for every photo.
 */
export async function listSubfolders(parentId: string | undefined, signal?: AbortSignal): Promise<FileRec[]> {
  const all: FileRec[] = [];
  for (;;) {
    const page = await api<{ directories: { file: FileRec }[]; total: number }>("GET", "/directories", {
      query: { parent_id: parentId, limit: 1000, offset: all.length },
      signal,
    });
    all.push(...page.directories.map((d) => d.file));
    if (page.directories.length === 0 || all.length >= page.total) return all;
  }
}

const fileCache = new Map<string, FileRec>();

/** A file or folder by id (cached for breadcrumbs). */
export async function getFile(id: string, fresh = false): Promise<FileRec> {
  const hit = fileCache.get(id);
  if (hit && !fresh) return hit;
  const f = await api<FileRec>("GET", `/files/${encodeURIComponent(id)}`);
  fileCache.set(id, f);
  return f;
}

/** The folders from the top down to `id` (included), for breadcrumbs. */
export async function ancestors(id: string): Promise<FileRec[]> {
  const chain: FileRec[] = [];
  let cur: string | null | undefined = id;
  while (cur && chain.length < 64) {
    const f: FileRec = await getFile(cur);
    chain.unshift(f);
    cur = f.parent_id;
  }
  return chain;
}

export function rename(f: FileRec, name: string): Promise<FileRec> {
  fileCache.delete(f.id);
  return api<FileRec>("PATCH", `/files/${encodeURIComponent(f.id)}`, { body: { name } });
}

/** Moves into `parentId` (undefined = top of the tree). */
export function move(f: FileRec, parentId: string | undefined): Promise<FileRec> {
  fileCache.delete(f.id);
  return api<FileRec>("PUT", `/files/${encodeURIComponent(f.id)}/move`, {
    body: { new_parent_id: parentId ?? "" },
  });
}

export function copy(f: FileRec, parentId: string | undefined, newName?: string): Promise<FileRec> {
  return api<FileRec>("POST", `/files/${encodeURIComponent(f.id)}/copy`, {
    body: { destination_parent_id: parentId ?? "", ...(newName ? { new_name: newName } : {}) },
  });
}

/** Moves to the trash (soft delete); a folder goes with everything in it. */
export async function trash(f: FileRec): Promise<void> {
  fileCache.delete(f.id);
  if (f.type === "directory") {
    await api("DELETE", `/directories/${encodeURIComponent(f.id)}`, { query: { recursive: true } });
  } else await api("DELETE", `/files/${encodeURIComponent(f.id)}`);
}

export function createFolder(name: string, parentId: string | undefined) {
  return api<Directory>("POST", "/directories", {
    body: { name, ...(parentId ? { parent_id: parentId } : {}) },
  });
}

/** A thumbnail as a blob: URL, or undefined when the server has none for this file. */
export async function thumbnailUrl(
  id: string,
  size: number,
  signal?: AbortSignal,
): Promise<string | undefined> {
  const res = await raw("GET", `/files/${encodeURIComponent(id)}/thumbnail`, { query: { size }, signal });
  if (!res.ok) return undefined;
  return URL.createObjectURL(await res.blob());
}
