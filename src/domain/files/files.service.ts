import { changeWatch } from "../../db/change-watch.ts";
import { AppError } from "../../errors.ts";
import { readUpTo } from "../../platform/local-files.ts";
import { LEVEL } from "../access/access.ts";
import { type Actor, requirePermission } from "../actor.ts";
import { parseInput } from "../parse-input.ts";
import {
  type HostContentResolver,
  locateContent,
  type OpenedContent,
  openedContent,
  reclaimUnused,
  withOpened,
} from "./content.ts";
import type { FilesDeps } from "./deps.ts";
import { type FileDto, toFileDto, toFileDtos, toTaggedFileDto } from "./files.dto.ts";
import type { FileRow } from "./files.repo.ts";
import {
  CopyFileInput,
  ListFilesInput,
  MoveFileInput,
  moveTarget,
  RecursiveInput,
  UpdateFileInput,
  ZipSelectionInput,
} from "./files.schemas.ts";
import { isPlayable, isTextual, STREAMABLE } from "./mime.ts";
import { normalizeName } from "./names.ts";
import { createPageCache } from "./page-cache.ts";
import { createUpload } from "./upload.ts";
import { ZipBudget } from "./zip-budget.ts";

/** Most entries one zip download may hold (its plan is kept in memory while it streams). */
export const MAX_ZIP_ENTRIES = 100_000;

/** A zip download's plan, holding its share of the zip budget until `release()`. */
export interface ZipPlan {
  name: string;
  entries: ZipEntry[];
  release(): void;
}

/**
 * One entry of a zip download: a directory, or a file whose row is read
 * and bytes opened when its turn comes. Only what the archive's layout needs
 * is kept while it streams: 100,000 whole rows held ~82 MiB of heap for the
 * whole download, per download.
 */
export interface ZipEntry {
  /** Its path inside the archive, "/"-joined tree names. */
  path: string;
  organizationId: string;
  id: string;
  directory: boolean;
  size: number;
  mtimeMs: number;
}

/** Largest file /content returns (docs/api.md: 10 MB → 413). */
export const MAX_TEXT_BYTES = 10 * 1024 * 1024;

/** How stale `accessed_at` may get before a read refreshes it. */
export const ACCESS_GRANULARITY_MS = 24 * 3600 * 1000;

/**
 * File operations of one organization's tree, shared by REST and RPC. Each
 * takes the caller's Actor, checks its permission, and reaches only rows of
 * its organization (another organization's id is 404, like a missing one).
 */
export function createFilesService(deps: FilesDeps) {
  const { db, repo, tree, blobs } = deps;
  let hostResolver: HostContentResolver | undefined;
  const { upload, checkDestination } = createUpload(deps);
  const dto = (row: FileRow): FileDto => toTaggedFileDto(db, row);
  const pages = createPageCache<{ files: FileDto[]; total: number }>(changeWatch(db.$client));
  const zipBudget = new ZipBudget();

  /** A zip's name and entries (zipPlan, before its budget). */
  async function planZip(
    actor: Actor,
    target: { directoryId: string; ids?: readonly string[] } | { ids: readonly string[] },
  ): Promise<{ name: string; entries: ZipEntry[] }> {
    let roots: FileRow[];
    let name: string;
    if ("directoryId" in target && target.ids) {
      // A selection inside one folder, named by the folder (a link for it: the folder's stream token).
      const dir = tree.liveDir(actor, target.directoryId);
      const q = parseInput(ZipSelectionInput, { ids: target.ids }, "query");
      roots = q.ids.map((id) => tree.live(actor, id));
      if (roots.some((r) => r.parent_id !== dir.id)) {
        throw new AppError("VALIDATION", "every selected item must be directly in this folder");
      }
      name = dir.name;
    } else if ("directoryId" in target) {
      const dir = tree.liveDir(actor, target.directoryId);
      roots = [dir];
      name = dir.name;
    } else {
      const q = parseInput(ZipSelectionInput, { ids: target.ids }, "body");
      roots = q.ids.map((id) => tree.live(actor, id));
      const parents = new Set(roots.map((r) => r.parent_id ?? ""));
      if (parents.size > 1) throw new AppError("VALIDATION", "a zip selection must come from one folder");
      name = "selection";
    }
    const entries: ZipEntry[] = [];
    for (const root of roots) {
      const base = root.path.slice(0, root.path.length - root.name.length);
      const rows = await tree.readableSubtree(
        actor,
        root,
        { max: MAX_ZIP_ENTRIES - entries.length },
        (r) => ({
          path: r.path.slice(base.length),
          organizationId: actor.organizationId,
          id: r.id,
          directory: r.type === "directory",
          size: r.size,
          mtimeMs: Date.parse(r.updated_at),
        }),
      );
      if (!rows) {
        throw new AppError("VALIDATION", `a zip may hold at most ${MAX_ZIP_ENTRIES} items`, {
          max_entries: MAX_ZIP_ENTRIES,
        });
      }
      for (const entry of rows) entries.push(entry);
    }
    return { name: `${name}.zip`, entries };
  }

  /**
   * Content of a live file for download/stream; ingests nothing, opens
   * nothing yet. `verify: false` skips the stored blob's existence check, for
   * callers that open the file before answering anyway (downloads).
   */
  async function openContent(
    actor: Actor,
    id: string,
    opts: { verify?: boolean } = {},
  ): Promise<OpenedContent> {
    requirePermission(actor, "file:read");
    const { row } = tree.liveTagged(actor, id);
    if (row.type === "directory") throw new AppError("VALIDATION", "a directory has no content to download");
    const opened = openedContent(row, await locateContent(row, blobs, hostResolver, opts));
    touchAccessed(actor, row);
    return opened;
  }

  /**
   * Records a read in `accessed_at` the way Linux's relatime does: at most
   * once a day per file, so reads (every range of a video) do not each cost
   * a database write.
   */
  function touchAccessed(actor: Actor, row: FileRow): void {
    const now = Date.now();
    if (now - Date.parse(row.accessed_at) < ACCESS_GRANULARITY_MS) return;
    repo.update(actor.organizationId, row.id, { accessed_at: new Date(now).toISOString() });
  }

  /**
   * Ingests the content of blob-less rows (watched files) so a copy can
   * share it. These are new bytes in the store, like an upload's: refused
   * up front (507) when their known sizes would cross the storage reserve,
   * and stopped as they stream once it is crossed. On a failure the blobs
   * ingested so far are released (the caller's `finally` never runs).
   */
  async function ingestForCopy(
    actor: Actor,
    id: string,
  ): Promise<Map<string, { hash: string; size: number }>> {
    const out = new Map<string, { hash: string; size: number }>();
    const root = tree.live(actor, id);
    // Counted before any content is read: a copy past storage.max_copy_items is refused first.
    const hosted = (await tree.copyable(actor, root)).filter((r) => r.type !== "directory" && !r.blob_hash);
    try {
      deps.reserve.admit(hosted.reduce((sum, r) => sum + r.size, 0));
      for (const r of hosted) {
        const content = openedContent(r, await locateContent(r, blobs, hostResolver));
        const staged = await blobs.stage(content.stream(), { reserve: deps.reserve });
        await blobs.commit(staged); // held until the copy's rows exist
        repo.addBlob(staged.hash, staged.size, r.updated_at);
        out.set(r.id, { hash: staged.hash, size: staged.size });
      }
    } catch (err) {
      await releaseIngested(out);
      throw err;
    }
    return out;
  }

  /** Lets go of blobs ingestForCopy held, reclaiming those no row took. */
  async function releaseIngested(ingested: Map<string, { hash: string }>): Promise<void> {
    for (const { hash } of ingested.values()) {
      blobs.release(hash);
      await reclaimUnused(repo, blobs, deps.log, hash);
    }
  }

  return {
    upload,
    checkDestination,
    /** The free space uploads leave (storage.min_free_bytes). */
    reserve: deps.reserve,

    /** Registers where watched-folder rows' bytes live (the watched-folders area calls this once). */
    setHostContentResolver(fn: HostContentResolver): void {
      hostResolver = fn;
    },

    get(actor: Actor, id: string): FileDto {
      requirePermission(actor, "file:read");
      const { row, tags } = tree.liveTagged(actor, id);
      return toFileDto(row, tags);
    },

    /**
     * Live children of `parent_id` (top level when absent), directories
     * first, then by name. The access check runs on every call; the page
     * itself is reused until the database changes (page-cache.ts).
     */
    list(actor: Actor, input: unknown): { files: FileDto[]; total: number } {
      requirePermission(actor, "file:read");
      const q = parseInput(ListFilesInput, input ?? {});
      const parent = tree.parent(actor, q.parent_id, LEVEL.read);
      const view = deps.access.view(actor);
      const parentId = parent?.id ?? null;
      // The rows a viewer sees depend on the organization, the parent, the page and the view's readable roots.
      const key = `${actor.organizationId}|${parentId}|${q.limit}|${q.offset}|${view.top}|${view.atLeast[1]}`;
      return pages.get(key, () => {
        const { rows, total } = repo.children(actor.organizationId, view, parentId, q);
        return { files: toFileDtos(db, rows), total };
      });
    },

    /** Renames and/or moves (PATCH/PUT /files/:id). `parent_id: null` moves to the top. */
    async update(actor: Actor, id: string, input: unknown): Promise<FileDto> {
      requirePermission(actor, "file:write");
      const q = parseInput(UpdateFileInput, input ?? {});
      const name = q.name === undefined ? undefined : normalizeName(q.name);
      return dto(await tree.relocate(actor, id, { name, parentId: q.parent_id }));
    },

    /** Moves under `new_parent_id` (alias `parent_id`); null or absent = top level. */
    async move(actor: Actor, id: string, input: unknown): Promise<FileDto> {
      requirePermission(actor, "file:write");
      const q = parseInput(MoveFileInput, input ?? {});
      const parentId = moveTarget(q);
      return dto(await tree.relocate(actor, id, { parentId }));
    },

    /** Copies a file (sharing its blob) or a directory subtree. */
    async copy(actor: Actor, id: string, input: unknown): Promise<FileDto> {
      requirePermission(actor, "file:write");
      const q = parseInput(CopyFileInput, input ?? {});
      const name = q.new_name === undefined ? undefined : normalizeName(q.new_name);
      const to = { parentId: q.destination_parent_id ?? null, name };
      const ingested = await ingestForCopy(actor, id);
      try {
        return dto(await tree.copy(actor, id, to, (r) => ingested.get(r.id)));
      } finally {
        await releaseIngested(ingested);
      }
    },

    /** Soft delete; a non-empty directory needs `recursive`. */
    async remove(actor: Actor, id: string, input: unknown = {}): Promise<{ success: true }> {
      requirePermission(actor, "file:delete");
      const { recursive } = parseInput(RecursiveInput, input ?? {});
      const n = await tree.softDelete(actor, tree.live(actor, id), recursive);
      deps.metrics.fileDeletions.inc(n);
      return { success: true };
    },

    openContent,

    /** For /stream: only the media types of docs/api.md (400 otherwise). */
    async openMedia(actor: Actor, id: string, opts: { verify?: boolean } = {}): Promise<OpenedContent> {
      const content = await openContent(actor, id, opts);
      if (!STREAMABLE.has(content.row.mime_type)) {
        throw new AppError("VALIDATION", `not a streamable media type (${content.row.mime_type})`);
      }
      return content;
    },

    /** Any audio or video file (what playback converts when needed); 400 for other types. */
    async openPlayable(actor: Actor, id: string): Promise<OpenedContent> {
      const content = await openContent(actor, id, { verify: false });
      if (!isPlayable(content.row.mime_type)) {
        throw new AppError("VALIDATION", `not an audio or video file (${content.row.mime_type})`);
      }
      return content;
    },

    /** Text preview: text/* and JSON only (400), at most 10 MB (413). */
    async readText(
      actor: Actor,
      id: string,
    ): Promise<{ content: string; mime_type: string; encoding: "utf-8" }> {
      const content = await openContent(actor, id);
      const mime = content.row.mime_type;
      if (!isTextual(mime)) throw new AppError("VALIDATION", `not a text file (${mime})`);
      if (content.size > MAX_TEXT_BYTES) {
        throw new AppError("PAYLOAD_TOO_LARGE", `text preview is limited to ${MAX_TEXT_BYTES} bytes`);
      }
      // Read from the one checked descriptor, bounded again: the file may have grown since its stat.
      const bytes = await withOpened(content, (file) => readUpTo(file, MAX_TEXT_BYTES));
      if (bytes.length > MAX_TEXT_BYTES) {
        throw new AppError("PAYLOAD_TOO_LARGE", `text preview is limited to ${MAX_TEXT_BYTES} bytes`);
      }
      return { content: bytes.toString("utf8"), mime_type: mime, encoding: "utf-8" };
    },

    /**
     * What a zip of a directory, or of a selection of one folder's items,
     * holds: every live item the actor may read below, with its tree path
     * (under the directory's name, or at the root for a selection). At most
     * MAX_ZIP_ENTRIES (400 beyond). Nothing is opened yet. The download
     * holds its share of the zip budget (zip-budget.ts: 429 or 503 when
     * spent) until `release()`, which the caller owes once the response
     * ends, however it ends. `holder` is whose downloads it counts with (the
     * actor's by default; a share link's visitor for a share).
     */
    async zipPlan(
      actor: Actor,
      target: { directoryId: string; ids?: readonly string[] } | { ids: readonly string[] },
      holder: string = actor.userId,
    ): Promise<ZipPlan> {
      requirePermission(actor, "file:read");
      const ticket = zipBudget.begin(holder);
      try {
        const plan = await planZip(actor, target);
        ticket.hold(plan.entries.length);
        return { ...plan, release: ticket.release };
      } catch (err) {
        ticket.release();
        throw err;
      }
    },

    /** The bytes of a zip entry's file, opened now (its turn in the archive). */
    async openEntry(entry: ZipEntry): Promise<OpenedContent> {
      // Trashed since the plan is fine (its bytes stay until a purge); purged is not.
      const row = repo.get(entry.organizationId, entry.id, true);
      if (!row) throw new AppError("FILE_NOT_FOUND", "a file of the archive was deleted meanwhile");
      return openedContent(row, await locateContent(row, blobs, hostResolver));
    },

    /** Counts a download or stream served (attic_file_downloads_total). */
    countDownload(kind: "download" | "stream" | "rpc"): void {
      deps.metrics.fileDownloads.inc({ kind });
    },
  };
}

export type FilesService = ReturnType<typeof createFilesService>;
