import { basename, join } from "node:path";
import type { Config } from "../../config/schema.ts";
import { movesWatch } from "../../db/change-watch.ts";
import type { Db } from "../../db/client.ts";
import { conflictOnUnique } from "../../db/unique.ts";
import { AppError, invalid, notFound } from "../../errors.ts";
import type { Logger } from "../../log.ts";
import type { HealthCheck } from "../../platform/health.ts";
import type { HostPolicy } from "../../platform/host-policy.ts";
import { isInside, isPlainAbsolute, openConfined, realDir } from "../../platform/hostfs.ts";
import { isId, newId, nowIso } from "../../platform/ids.ts";
import type { Metrics } from "../../platform/metrics.ts";
import { type Access, LEVEL } from "../access/access.ts";
import type { GrantsService } from "../access/grants.service.ts";
import { type Actor, requireInstanceAdmin, requirePermission } from "../actor.ts";
import type { ContentLocation } from "../files/content.ts";
import { type FileDto, toFileDtos } from "../files/files.dto.ts";
import { normalizeName } from "../files/names.ts";
import type { Tree } from "../files/tree.ts";
import { parseInput } from "../parse-input.ts";
import { createWatchRuntime } from "./runtime.ts";
import { createFilesPager } from "./slices.ts";
import { createWatchedRepo, type FileRow, type WatchedFolderRow } from "./watched.repo.ts";
import {
  CreateWatchedFolderInput,
  ListFilesInput,
  ScanInput,
  UpdateWatchedFolderInput,
  type WatchedFolderDto,
} from "./watched.schemas.ts";

export interface WatchedDeps {
  db: Db;
  cfg: Config["watch"];
  log: Logger;
  metrics: Metrics;
  /** Which host directories may be watched (system dirs, the data dir, watch.allowed_roots). */
  hostPolicy: HostPolicy;
  /** The tree's bounds: host entries past them are not indexed. */
  limits: { maxPathLength: number; maxDepth: number };
  /** Folder grants: a mount goes where the admin may write, and may carry its own list. */
  access: Access;
  grants: Pick<GrantsService, "initial">;
  /** The organization's queue of tree changes, and its subtree jobs: a rename rewrites the paths below. */
  tree: Pick<Tree, "exclusive" | "jobs">;
  /** True while requests are arriving: scans then write in shorter turns. */
  busy?: () => boolean;
}

const forbidden = (message: string) => new AppError("FORBIDDEN_PATH", message);

/** Rows of a watched folder deleted per transaction when it is removed or pointed elsewhere. */
const DROP_BATCH = 500;

/**
 * Watched folders of one organization: host directories mounted read-only
 * into its tree. Management needs an instance admin (a host path is the
 * machine owner's to give, not a tenant's), reading `org:read` and, but for
 * instance admins, read on its directory (folder grants); another
 * organization's folder, or one the reader may not know of, is 404 like a missing one. Scanning and watching run
 * in the background (runtime.ts); these calls never wait for a scan.
 */
export function createWatchedService(deps: WatchedDeps) {
  const { db } = deps;
  const repo = createWatchedRepo(db);
  const filesPage = createFilesPager(repo, movesWatch(db.$client));
  const runtime = createWatchRuntime({
    repo,
    cfg: deps.cfg,
    log: deps.log,
    metrics: deps.metrics,
    limits: deps.limits,
    hostPolicy: deps.hostPolicy,
    busy: deps.busy,
  });

  const folderOf = (actor: Actor, id: string): WatchedFolderRow => {
    const row = isId(id) ? repo.get(actor.organizationId, id) : undefined;
    if (!row) throw notFound("watched folder");
    return row;
  };

  /**
   * Whether the actor may know of the folder: an instance admin (who manages
   * them) always; anyone else when they may read its directory in the tree.
   */
  const seen = (actor: Actor, row: WatchedFolderRow): boolean => {
    if (actor.isInstanceAdmin) return true;
    const mount = repo.mountRow(row.id);
    return mount !== undefined && deps.access.levelOf(actor, { acl_id: mount.acl }) >= LEVEL.read;
  };

  /** A folder the actor may know of (seen), else 404 as if there were none. */
  const seenFolder = (actor: Actor, id: string): WatchedFolderRow => {
    const row = folderOf(actor, id);
    if (!seen(actor, row)) throw notFound("watched folder");
    return row;
  };

  /**
   * Renames a folder and its mount directory at once; the paths below follow
   * a folder at a time in the organization's queue of tree changes (a 1M-file
   * drive's paths rewritten in one statement held the server for 20 s).
   */
  const rename = (org: string, folderId: string, name: string) =>
    deps.tree.exclusive(org, async () => {
      const mount = repo.mountRow(folderId);
      if (!mount) return;
      const newPath = `${mount.path.slice(0, mount.path.lastIndexOf("/"))}/${name}`;
      conflictOnUnique(`a file or directory named ${JSON.stringify(name)} already exists there`, () =>
        repo.transaction(() => {
          repo.renameMount(folderId, newPath, name, nowIso());
          deps.tree.jobs.begin(org, mount.id, { kind: "move" });
        }),
      );
      await deps.tree.jobs.finish(org);
    });

  /** The real host directory for a new folder, after every refusal rule. */
  async function checkedRoot(orgId: string, path: string, self?: string): Promise<string> {
    if (!isPlainAbsolute(path))
      throw invalid("path must be an absolute host path without '..'", { field: "path" });
    const real = await realDir(path);
    if (!real) throw invalid("path is not an existing host directory", { field: "path" });
    const refusal = deps.hostPolicy.refusal(path, real);
    if (refusal) throw forbidden(`${path} ${refusal} and cannot be watched`);
    for (const other of repo.allPaths()) {
      if (other.id === self) continue;
      if (isInside(real, other.path) || isInside(other.path, real)) {
        // Another organization's host path is not this tenant's to learn.
        throw forbidden(
          other.organization_id === orgId
            ? `${real} overlaps the watched folder at ${other.path}`
            : `${path} overlaps a watched folder of another organization`,
        );
      }
    }
    return real;
  }

  /**
   * Deletes a folder's rows below its mount in batches of DROP_BATCH (~25 ms
   * at 1M rows), yielding between them.
   */
  async function dropRows(folderId: string): Promise<void> {
    while (repo.deleteSome(folderId, DROP_BATCH) > 0) await new Promise((r) => setImmediate(r));
  }

  /** The directory to mount under: a live, writable (not watched) directory of the org. */
  function mountParent(actor: Actor, parentId: string | undefined): FileRow | undefined {
    if (parentId === undefined) {
      if (deps.access.view(actor).top < LEVEL.write)
        throw new AppError("PERMISSION_DENIED", "you may not add items at the top of the tree");
      return undefined;
    }
    const parent = isId(parentId) ? repo.getFile(actor.organizationId, parentId) : undefined;
    if (parent?.type !== "directory") throw notFound("parent directory", "DIRECTORY_NOT_FOUND");
    deps.access.check(actor, parent, LEVEL.write, "DIRECTORY_NOT_FOUND");
    if (parent.watched_folder_id) throw new AppError("READ_ONLY", "cannot mount inside a watched folder");
    return parent;
  }

  return {
    /** Mounts a host directory (POST /watched-folders); the first scan starts in the background. */
    async create(actor: Actor, input: unknown): Promise<WatchedFolderDto> {
      requireInstanceAdmin(actor, "mounting a host directory");
      const q = parseInput(CreateWatchedFolderInput, input);
      if (q.name !== undefined) normalizeName(q.name);
      const parent = mountParent(actor, q.parent_id);
      const root = await checkedRoot(actor.organizationId, q.path);
      const name = normalizeName(q.name ?? basename(root));
      const id = newId();
      const dirId = newId();
      const now = nowIso();
      conflictOnUnique(`a file or directory named ${JSON.stringify(name)} already exists there`, () =>
        repo.transaction(() => {
          repo.insertFolder({
            ...{ id, organization_id: actor.organizationId, name, path: root, directory_id: dirId },
            ...{ created_by: actor.userId, status: "scanning", created_at: now, updated_at: now },
          });
          repo.insertEntry({
            ...{ id: dirId, organization_id: actor.organizationId, owner_id: actor.userId, name },
            ...{ parent_id: parent?.id ?? null, path: `${parent?.path ?? ""}/${name}`, type: "directory" },
            ...{ size: 0, mime_type: "inode/directory", watched_folder_id: id, host_rel_path: "" },
            ...{ host_mtime_ms: null, now, updated_at: now, acl_id: parent?.acl_id ?? null },
          });
          if (q.grants)
            deps.grants.initial(actor, repo.getFile(actor.organizationId, dirId) as FileRow, q.grants);
        }),
      );
      void runtime.scan(id, false);
      return toDto(folderOf(actor, id));
    },

    list(actor: Actor): { folders: WatchedFolderDto[] } {
      requirePermission(actor, "org:read");
      return {
        folders: repo
          .listByOrg(actor.organizationId)
          .filter((row) => seen(actor, row))
          .map(toDto),
      };
    },

    get(actor: Actor, id: string): WatchedFolderDto {
      requirePermission(actor, "org:read");
      return toDto(seenFolder(actor, id));
    },

    /**
     * Renames the folder (and its directory in the tree) and/or points it at
     * another host path (PUT /watched-folders/:id): the old index is dropped
     * and the new path scanned in the background, under the same rules as create.
     */
    async update(actor: Actor, id: string, input: unknown): Promise<WatchedFolderDto> {
      requireInstanceAdmin(actor, "changing a watched folder");
      const q = parseInput(UpdateWatchedFolderInput, input ?? {});
      const row = folderOf(actor, id);
      const root = q.path === undefined ? undefined : await checkedRoot(actor.organizationId, q.path, row.id);
      const mount = repo.mountRow(row.id);
      const name = q.name === undefined ? undefined : normalizeName(q.name);
      // A scan or live change running meanwhile needs no stop: the rows it writes take their parent's
      // path as it is then (scan-writes.ts).
      if (mount && name !== undefined && name !== row.name) await rename(actor.organizationId, row.id, name);
      if (mount && root !== undefined && root !== row.path) {
        await runtime.stop(row.id);
        await dropRows(row.id);
        repo.transaction(() => {
          repo.setDirMtime(mount.id, null);
          repo.updateFolder(row.id, {
            path: root,
            status: "scanning",
            files_indexed: 0,
            updated_at: nowIso(),
          });
        });
        void runtime.scan(row.id, false);
      }
      return toDto(folderOf(actor, id));
    },

    /** Unmounts: stops watching and removes the folder's rows (the host files are never touched). */
    async remove(actor: Actor, id: string): Promise<void> {
      requireInstanceAdmin(actor, "unmounting a watched folder");
      const row = folderOf(actor, id);
      await runtime.stop(row.id);
      // Its rows go first, from the deepest up, in batches that never hold the event loop long; then the
      // folder. Deleting the mount directory first cascaded to every row below it in one statement
      // (1.05M rows: 113 s with every request waiting).
      await dropRows(row.id);
      repo.deleteFolder(row.id);
    },

    /** Queues a rescan (POST /watched-folders/:id/scan) and answers at once. */
    scan(actor: Actor, id: string, input: unknown): WatchedFolderDto {
      requireInstanceAdmin(actor, "scanning a watched folder");
      const q = parseInput(ScanInput, input ?? {});
      const row = folderOf(actor, id);
      void runtime.scan(row.id, q.full ?? false);
      return toDto(row);
    },

    /** Indexed files of the folder, by host path (GET /watched-folders/:id/files). */
    async listFiles(actor: Actor, id: string, input: unknown): Promise<{ files: FileDto[]; total: number }> {
      requirePermission(actor, "file:read");
      const q = parseInput(ListFilesInput, input ?? {});
      const row = seenFolder(actor, id);
      const { rows, total } = await filesPage(row.id, deps.access.view(actor), q);
      return { files: toFileDtos(db, rows), total };
    },

    /**
     * Where a watched row's bytes are, for download/stream/content. Opens the
     * host file and checks, on the opened descriptor, that it is still inside
     * the folder: a directory swapped for an escaping symlink since indexing
     * answers 404; an offline drive 503.
     */
    async resolveHostFile(row: FileRow): Promise<ContentLocation> {
      const folder = row.watched_folder_id ? repo.getById(row.watched_folder_id) : undefined;
      if (!folder || folder.organization_id !== row.organization_id || row.host_rel_path == null) {
        throw notFound("file", "FILE_NOT_FOUND");
      }
      // The policy as it is now: a folder made before the data dir moved into it, or before
      // watch.allowed_roots was narrowed, is served no more.
      const refusal = deps.hostPolicy.refusal(folder.path, folder.path);
      if (refusal) throw forbidden(`the watched folder's host path ${refusal}`);
      if (row.is_offline || folder.status === "offline") {
        throw new AppError("UNAVAILABLE", "the drive holding this file is offline");
      }
      const opened = await openConfined(join(folder.path, row.host_rel_path), folder.path);
      if (!opened) throw notFound("file", "FILE_NOT_FOUND");
      await opened.handle.close();
      return { path: opened.realPath, size: opened.size, mtimeMs: opened.mtimeMs };
    },

    /** Scans every folder and starts watching (server start). */
    start: () => runtime.startAll(),
    close: () => runtime.close(),
    /**
     * For /health, which anyone may read: degraded while any folder polls,
     * is offline or failed, with ids and states only. Names, host paths and
     * error texts are for signed-in admins (GET /watched-folders).
     */
    health(): HealthCheck {
      const troubled = runtime.statuses().filter((s) => ["polling", "offline", "error"].includes(s.status));
      if (troubled.length === 0) return { status: "ok", folders: runtime.statuses().length };
      const counts = new Map<string, number>();
      for (const t of troubled) counts.set(t.status, (counts.get(t.status) ?? 0) + 1);
      return {
        status: "degraded",
        message: `watched folders not live: ${[...counts].map(([state, n]) => `${n} ${state}`).join(", ")}`,
        folders: troubled.map((t) => ({ id: t.id, status: t.status })),
      };
    },
  };
}

function toDto(row: WatchedFolderRow): WatchedFolderDto {
  return {
    id: row.id,
    name: row.name,
    path: row.path,
    directory_id: row.directory_id ?? "",
    status: row.status as WatchedFolderDto["status"],
    ...(row.status_message ? { status_message: row.status_message } : {}),
    files_seen: row.files_seen,
    files_indexed: row.files_indexed,
    scan_errors: row.scan_errors,
    scan_rate: row.scan_rate,
    ...(row.last_scan_started_at ? { last_scan_started_at: row.last_scan_started_at } : {}),
    ...(row.last_scan_finished_at ? { last_scan_finished_at: row.last_scan_finished_at } : {}),
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

export type WatchedService = ReturnType<typeof createWatchedService>;
