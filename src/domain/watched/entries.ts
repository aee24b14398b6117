import { lookup } from "mime-types";
import type { FileFacts } from "../../platform/hostfs.ts";
import { newId } from "../../platform/ids.ts";
import type { BatchWriter } from "./batch-writer.ts";
import type { DirTask, ScanTarget } from "./scan-types.ts";
import type { IndexedChild } from "./watched.repo.ts";

/* Row writes of the scanner: one mirrored host entry each. */

/**
 * A host directory: the task to visit it, after queuing its row's insert when
 * it is new (or replaces a file of the same name).
 */
export function dirEntry(
  writer: BatchWriter,
  target: ScanTarget,
  parent: DirTask,
  name: string,
  row: IndexedChild | undefined,
): DirTask {
  if (row && isDir(row)) return childTask(parent, row);
  const rel = relOf(parent, name);
  if (row) writer.push({ k: "delete", folderId: target.folderId, rel });
  const id = newId();
  const path = `${parent.path}/${name}`;
  const now = nowIsoOf(Date.now());
  writer.push({
    k: "insert",
    row: {
      ...base(target, parent, id, name, path, rel, now),
      type: "directory",
      size: 0,
      mime_type: "inode/directory",
      host_mtime_ms: null,
      updated_at: now,
    },
  });
  return {
    rel,
    id,
    path,
    knownMtime: null,
    knownInode: null,
    isNew: true,
    parentId: parent.id,
    acl: parent.acl,
  };
}

/** Queues the insert or update of a file row; true when something is written. */
export function fileEntry(
  writer: BatchWriter,
  target: ScanTarget,
  parent: DirTask,
  name: string,
  facts: FileFacts,
  row: IndexedChild | undefined,
): boolean {
  const updatedAt = mtimeIsoOf(facts.mtimeMs);
  if (row && row.type === "file") {
    if (row.size === facts.size && row.host_mtime_ms === facts.mtimeMs && !row.is_offline) return false;
    writer.push({
      k: "facts",
      facts: { id: row.id, size: facts.size, host_mtime_ms: facts.mtimeMs, updated_at: updatedAt },
    });
    return true;
  }
  const rel = relOf(parent, name);
  if (row) writer.push({ k: "delete", folderId: target.folderId, rel });
  const id = newId();
  writer.push({
    k: "insert",
    row: {
      ...base(target, parent, id, name, `${parent.path}/${name}`, rel, nowIsoOf(Date.now())),
      type: "file",
      size: facts.size,
      mime_type: mimeOf(name),
      host_mtime_ms: facts.mtimeMs,
      updated_at: updatedAt,
    },
  });
  return true;
}

/**
 * A time (ms) as ISO text, remembering its last answer; absurd clocks
 * (before 1970, past year 9999) read as now. A scan asks for the same
 * millisecond many times in a row (now, or the mtime shared by a
 * directory's files), and formatting a date cost ~1 µs a row (~1.7 s of a
 * 1M-file scan's profile). Mtimes and now each have their own: one memo
 * asked for both in turn, as each new file does, never answered from it
 * (isoOf still took 0.9 s of a 1M-file scan's main thread).
 */
function isoMemo(): (ms: number) => string {
  let lastMs = Number.NaN;
  let lastIso = "";
  const isoOf = (ms: number): string => {
    if (ms === lastMs) return lastIso;
    const d = new Date(ms);
    const iso =
      ms >= 0 && !Number.isNaN(d.getTime()) && d.getUTCFullYear() < 10000 ? d.toISOString() : undefined;
    if (iso === undefined) return isoOf(Date.now());
    lastMs = ms;
    lastIso = iso;
    return iso;
  };
  return isoOf;
}
/** The scan's clock, as rows' creation times. */
const nowIsoOf = isoMemo();
/** Host files' mtimes, as rows' modification times. */
const mtimeIsoOf = isoMemo();

function base(
  target: ScanTarget,
  parent: DirTask,
  id: string,
  name: string,
  path: string,
  rel: string,
  now: string,
) {
  return {
    id,
    organization_id: target.organizationId,
    owner_id: target.ownerId,
    parent_id: parent.id,
    name,
    path,
    watched_folder_id: target.folderId,
    host_rel_path: rel,
    now,
    acl_id: parent.acl,
  };
}

/** The media type a host file's name suggests (host files are never sniffed). */
export const mimeOf = (name: string) => lookup(name) || "application/octet-stream";
export const isDir = (row: IndexedChild) => row.type === "directory";
export const relOf = (parent: DirTask, name: string) => (parent.rel === "" ? name : `${parent.rel}/${name}`);
export const childTask = (parent: DirTask, row: IndexedChild): DirTask => ({
  rel: relOf(parent, row.name),
  id: row.id,
  path: `${parent.path}/${row.name}`,
  knownMtime: row.host_mtime_ms,
  knownInode: row.host_inode,
  isNew: false,
  acl: row.acl_id,
});
