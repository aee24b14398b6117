import { changeWatch } from "../../db/change-watch.ts";
import type { Db } from "../../db/client.ts";
import { AppError } from "../../errors.ts";
import type { Metrics } from "../../platform/metrics.ts";
import { type Access, LEVEL } from "../access/access.ts";
import { type Actor, requirePermission } from "../actor.ts";
import { parseInput } from "../parse-input.ts";
import { type DirectoryDto, type DirectoryNodeDto, type FileDto, toFileDtos } from "./files.dto.ts";
import type { FileRow, FilesRepo } from "./files.repo.ts";
import {
  CreateDirectoryInput,
  ListFilesInput,
  MoveFileInput,
  moveTarget,
  PageInput,
  RecursiveInput,
  TreeInput,
} from "./files.schemas.ts";
import { DIRECTORY_MIME } from "./mime.ts";
import { normalizeName } from "./names.ts";
import { createPageCache } from "./page-cache.ts";
import type { Tree } from "./tree.ts";

/** Most nodes one tree answer may hold; deeper trees are asked for with `depth`. */
export const MAX_TREE_NODES = 50_000;

/**
 * Directory operations (directories are File rows of type "directory"),
 * shared by REST and RPC, with the same permission and organization rules
 * as files.
 */
export function createDirectoriesService(deps: {
  db: Db;
  repo: FilesRepo;
  tree: Tree;
  access: Access;
  metrics: Metrics;
}) {
  const { db, repo, tree, access } = deps;
  /** A directory's pages, reused until the database changes (page-cache.ts), as GET /files?parent_id does. */
  const pages = createPageCache<{ files: FileDto[]; total: number }>(changeWatch(db.$client));

  function withCounts(actor: Actor, rows: readonly FileRow[]): DirectoryDto[] {
    const counts = repo.childCounts(
      actor.organizationId,
      access.view(actor),
      rows.map((r) => r.id),
    );
    return toFileDtos(db, rows).map((file) => ({ file, child_count: counts.get(file.id) ?? 0 }));
  }
  const one = (actor: Actor, row: FileRow) => withCounts(actor, [row])[0] as DirectoryDto;

  /** The tree under `root`, `depth` levels of subdirectories (0 = all). */
  async function buildTree(actor: Actor, root: FileRow, depth: number): Promise<DirectoryNodeDto> {
    // Directories alone, to the depth asked: the files below are never read.
    const rows = await tree.readableSubtree(actor, root, { max: MAX_TREE_NODES, dirs: true, depth });
    if (!rows) {
      throw new AppError("VALIDATION", `tree has more than ${MAX_TREE_NODES} directories; ask with a depth`);
    }
    const level = new Map<string, number>([[root.id, 0]]);
    const kept = rows.filter((r) => {
      if (r.id === root.id) return true;
      const d = (level.get(r.parent_id ?? "") ?? Number.POSITIVE_INFINITY) + 1;
      level.set(r.id, d);
      return depth === 0 || d <= depth;
    });
    const nodes = new Map<string, DirectoryNodeDto>();
    for (const dir of withCounts(actor, kept)) nodes.set(dir.file.id, { directory: dir, children: [] });
    for (const r of kept) {
      if (r.id !== root.id) nodes.get(r.parent_id ?? "")?.children.push(nodes.get(r.id) as DirectoryNodeDto);
    }
    for (const n of nodes.values())
      n.children.sort((a, b) => a.directory.file.name.localeCompare(b.directory.file.name));
    return nodes.get(root.id) as DirectoryNodeDto;
  }

  return {
    /** Creates a directory; 409 when the name is taken among live siblings. */
    create(actor: Actor, input: unknown): DirectoryDto {
      requirePermission(actor, "file:write");
      const q = parseInput(CreateDirectoryInput, input ?? {});
      const name = normalizeName(q.name);
      const id = tree.tx(() => {
        const parent = tree.parent(actor, q.parent_id);
        tree.writable(parent, "directory");
        return tree.insertChild(actor, parent, name, {
          type: "directory",
          size: 0,
          mime_type: DIRECTORY_MIME,
        });
      });
      return one(actor, tree.liveDir(actor, id));
    },

    get(actor: Actor, id: string): DirectoryDto {
      requirePermission(actor, "file:read");
      return one(actor, tree.liveDir(actor, id));
    },

    /** Live children (files and directories) of a directory, paginated. */
    children(actor: Actor, id: string, input: unknown): { files: FileDto[]; total: number } {
      requirePermission(actor, "file:read");
      const page = parseInput(PageInput, input ?? {});
      const dir = tree.liveDir(actor, id);
      const view = access.view(actor);
      // The rows a viewer sees depend on the organization, the directory, the page and the view's readable roots.
      const key = `${actor.organizationId}|${dir.id}|${page.limit}|${page.offset}|${view.top}|${view.atLeast[1]}`;
      return pages.get(key, () => {
        const { rows, total } = repo.children(actor.organizationId, view, dir.id, page);
        return { files: toFileDtos(db, rows), total };
      });
    },

    /** Directories only, under `parent_id` (top level when absent), paginated. */
    list(actor: Actor, input: unknown): { directories: DirectoryDto[]; total: number } {
      requirePermission(actor, "file:read");
      const q = parseInput(ListFilesInput, input ?? {});
      const parent = tree.parent(actor, q.parent_id, LEVEL.read);
      const { rows, total } = repo.children(
        actor.organizationId,
        access.view(actor),
        parent?.id ?? null,
        q,
        true,
      );
      return { directories: withCounts(actor, rows), total };
    },

    async tree(actor: Actor, id: string, input: unknown): Promise<DirectoryNodeDto> {
      requirePermission(actor, "file:read");
      const { depth } = parseInput(TreeInput, input ?? {});
      return buildTree(actor, tree.liveDir(actor, id), depth);
    },

    /** Moves a directory (its subtree's paths follow); into its own subtree is 400. */
    async move(actor: Actor, id: string, input: unknown): Promise<DirectoryDto> {
      requirePermission(actor, "file:write");
      const q = parseInput(MoveFileInput, input ?? {});
      tree.liveDir(actor, id);
      const parentId = moveTarget(q);
      return one(actor, await tree.relocate(actor, id, { parentId }));
    },

    /** Soft delete; non-empty needs `recursive=true` (400 otherwise). */
    async remove(actor: Actor, id: string, input: unknown): Promise<{ success: true }> {
      requirePermission(actor, "file:delete");
      const { recursive } = parseInput(RecursiveInput, input ?? {});
      const n = await tree.softDelete(actor, tree.liveDir(actor, id), recursive);
      deps.metrics.fileDeletions.inc(n);
      return { success: true };
    },
  };
}

export type DirectoriesService = ReturnType<typeof createDirectoriesService>;
