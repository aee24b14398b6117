/**
 * Proto ⇄ domain shapes. Domain DTOs carry docs/api.md's snake_case fields;
 * protobuf-es messages the camelCase form of the same names (on the wire,
 * JSON uses the proto names again), bigint for 64-bit integers, and the
 * proto3 convention that 0 / "" mean "not given".
 */
import type { MessageInitShape } from "@bufbuild/protobuf";
import type { DirectoryDto, DirectoryNodeDto, FileDto } from "../domain/files/files.dto.ts";
import type { TagDto } from "../domain/tags/tags.repo.ts";
import type {
  DirectoryNodeSchema,
  DirectorySchema,
  FileSchema,
  SearchQuery,
  SearchResultSchema,
  TagSchema,
} from "../gen/attic/v1/common_pb.ts";
import type { GroupMemberSchema, GroupSchema } from "../gen/attic/v1/group_pb.ts";
import type { WatchedFolderSchema } from "../gen/attic/v1/watched_folder_pb.ts";

type FileInit = MessageInitShape<typeof FileSchema>;

/** A Tag as its proto message. */
function tagToProto(t: TagDto) {
  return { id: t.id, name: t.name, color: t.color, createdAt: t.created_at } satisfies MessageInitShape<
    typeof TagSchema
  >;
}

/** A File (or directory) DTO as its proto message; optional fields stay unset when absent. */
export function fileToProto(f: FileDto): FileInit {
  return {
    id: f.id,
    name: f.name,
    path: f.path,
    ...(f.parent_id ? { parentId: f.parent_id } : {}),
    type: f.type,
    size: BigInt(f.size),
    mimeType: f.mime_type,
    hash: f.hash,
    createdAt: f.created_at,
    updatedAt: f.updated_at,
    accessedAt: f.accessed_at,
    permissions: f.permissions,
    tags: f.tags.map(tagToProto),
    isDeleted: f.is_deleted,
    ...(f.deleted_at ? { deletedAt: f.deleted_at } : {}),
    readOnly: f.read_only,
    isOffline: f.is_offline,
  };
}

/** A Directory DTO as its proto message. */
export function directoryToProto(d: DirectoryDto): MessageInitShape<typeof DirectorySchema> {
  return { file: fileToProto(d.file), childCount: BigInt(d.child_count) };
}

/** A tree, converted iteratively: depth is unbounded, the call stack is not. */
export function nodeToProto(root: DirectoryNodeDto): MessageInitShape<typeof DirectoryNodeSchema> {
  type Out = { directory: MessageInitShape<typeof DirectorySchema>; children: Out[] };
  const out: Out = { directory: directoryToProto(root.directory), children: [] };
  const stack: [DirectoryNodeDto, Out][] = [[root, out]];
  while (stack.length) {
    const [from, to] = stack.pop()!;
    for (const child of from.children) {
      const c: Out = { directory: directoryToProto(child.directory), children: [] };
      to.children.push(c);
      stack.push([child, c]);
    }
  }
  return out;
}

/** `{files, total}` pages (ListFiles, ListChildren, ListWatchedFolderFiles). */
export function filesPageToProto(p: { files: FileDto[]; total: number }) {
  return { files: p.files.map(fileToProto), total: BigInt(p.total) };
}

/** docs/api.md's SearchResult as its proto message. */
export function searchResultToProto(r: {
  files: FileDto[];
  total: number;
  page: number;
  page_size: number;
  total_pages: number;
  total_is_estimate: boolean;
}): MessageInitShape<typeof SearchResultSchema> {
  return {
    files: r.files.map(fileToProto),
    total: BigInt(r.total),
    page: r.page,
    pageSize: r.page_size,
    totalPages: r.total_pages,
    totalIsEstimate: r.total_is_estimate,
  };
}

/** A SearchQuery as the search service's raw input (the same fields as REST's query string). */
export function searchQueryFromProto(q: SearchQuery | undefined): Record<string, unknown> {
  if (!q) return {};
  return {
    query: q.query,
    path: q.path,
    file_type: q.fileType,
    tags: q.tags.length ? q.tags : undefined,
    min_size: q.minSize === undefined ? undefined : Number(q.minSize),
    max_size: q.maxSize === undefined ? undefined : Number(q.maxSize),
    start_date: q.startDate,
    end_date: q.endDate,
    limit: q.limit || undefined,
    offset: q.offset || undefined,
    sort_by: q.sortBy || undefined,
    sort_order: q.sortOrder || undefined,
  };
}

/** proto3 page fields: 0 means "the default". */
export function pageFromProto(p: { limit: number; offset: number }): { limit?: number; offset?: number } {
  return { ...(p.limit ? { limit: p.limit } : {}), ...(p.offset ? { offset: p.offset } : {}) };
}

/** A Group DTO as its proto message. */
export function groupToProto(g: {
  id: string;
  name: string;
  description: string;
  member_count: number;
  created_at: string;
  updated_at: string;
}): MessageInitShape<typeof GroupSchema> {
  return {
    id: g.id,
    name: g.name,
    description: g.description,
    memberCount: BigInt(g.member_count),
    createdAt: g.created_at,
    updatedAt: g.updated_at,
  };
}

/** A group member as its proto message. */
export function memberToProto(m: {
  user_id: string;
  username: string;
  email: string;
  added_at: string;
}): MessageInitShape<typeof GroupMemberSchema> {
  return { userId: m.user_id, username: m.username, email: m.email, addedAt: m.added_at };
}

/** A watched folder DTO as its proto message. */
export function watchedFolderToProto(w: {
  id: string;
  name: string;
  path: string;
  parent_id?: string | null;
  directory_id: string;
  status: string;
  status_message?: string | null;
  files_seen: number;
  files_indexed: number;
  scan_errors: number;
  last_scan_started_at?: string | null;
  last_scan_finished_at?: string | null;
  created_at: string;
  updated_at: string;
}): MessageInitShape<typeof WatchedFolderSchema> {
  return {
    id: w.id,
    name: w.name,
    path: w.path,
    ...(w.parent_id ? { parentId: w.parent_id } : {}),
    directoryId: w.directory_id,
    status: w.status,
    ...(w.status_message ? { statusMessage: w.status_message } : {}),
    filesSeen: BigInt(w.files_seen),
    filesIndexed: BigInt(w.files_indexed),
    scanErrors: BigInt(w.scan_errors),
    ...(w.last_scan_started_at ? { lastScanStartedAt: w.last_scan_started_at } : {}),
    ...(w.last_scan_finished_at ? { lastScanFinishedAt: w.last_scan_finished_at } : {}),
    createdAt: w.created_at,
    updatedAt: w.updated_at,
  };
}
