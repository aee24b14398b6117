import { AppError } from "../../errors.ts";
import { isId, nowIso } from "../../platform/ids.ts";
import { LEVEL } from "../access/access.ts";
import { type Actor, requirePermission } from "../actor.ts";
import { parseInput } from "../parse-input.ts";
import { reclaimUnused } from "./content.ts";
import type { FilesDeps } from "./deps.ts";
import { type FileDto, toFileDtos, toTaggedFileDto } from "./files.dto.ts";
import type { FileRow } from "./files.repo.ts";
import { PageInput } from "./files.schemas.ts";
import { COPY_BATCH } from "./tree.ts";

/**
 * The trash: soft-deleted items until restored or purged. A user sees and
 * acts on items of folders they manage (folder grants), and on their own
 * items where they may still write; another's item they cannot read is 404. Restore puts items back where they were: 409 when the name
 * is taken there again, 409 too when the parent directory is itself in the
 * trash (restore the parent first; nothing is moved silently).
 */
export function createTrashService(deps: Omit<FilesDeps, "maxUploadBytes">) {
  const { db, repo, tree, access } = deps;

  /** A deleted row the actor may act on; 404 when missing, live or another organization's. */
  function trashed(actor: Actor, id: string): FileRow {
    const row = isId(id) ? repo.get(actor.organizationId, id, true) : undefined;
    // A copy still being written is hidden the same way, but is not in the trash.
    if (!row?.is_deleted || row.delete_batch?.startsWith(COPY_BATCH)) {
      throw new AppError("FILE_NOT_FOUND", "no such item in the trash");
    }
    const level = access.levelOf(actor, row);
    if (level < LEVEL.read) throw new AppError("FILE_NOT_FOUND", "no such item in the trash");
    if (level < LEVEL.manage && !(row.owner_id === actor.userId && level >= LEVEL.write)) {
      throw new AppError(
        "PERMISSION_DENIED",
        "only the owner or someone who manages this folder may do this",
      );
    }
    return row;
  }

  /** The rows deleted together with `root` (its subtree in the same batch). */
  function batchOf(actor: Actor, root: FileRow): string[] {
    const ids = new Set<string>([root.id]);
    for (const r of tree.subtreeRows(actor.organizationId, root)) {
      if (r.delete_batch === root.delete_batch && ids.has(r.parent_id ?? "")) ids.add(r.id);
    }
    return [...ids];
  }

  return {
    /** The heads of the caller's deletes (a deleted directory stands for its subtree), newest first. */
    list(actor: Actor, input: unknown): { files: FileDto[]; total: number } {
      requirePermission(actor, "file:read");
      const page = parseInput(PageInput, input ?? {});
      const { rows, total } = repo.trash(actor.organizationId, access.view(actor), actor.userId, page);
      return { files: toFileDtos(db, rows), total };
    },

    /** Restores an item and what was deleted with it. */
    restore(actor: Actor, id: string): FileDto {
      requirePermission(actor, "file:write");
      const org = actor.organizationId;
      const row = tree.tx(() => {
        const row = trashed(actor, id);
        if (row.parent_id) {
          const parent = repo.get(org, row.parent_id, true);
          if (parent?.is_deleted) {
            throw new AppError("CONFLICT", "the parent directory is in the trash; restore it first", {
              parent_id: parent.id,
            });
          }
        }
        tree.nameFree(org, row.parent_id, row.name);
        repo.restore(org, batchOf(actor, row), row.delete_batch ?? "", nowIso());
        return repo.get(org, row.id) as FileRow;
      });
      return toTaggedFileDto(db, row);
    },

    /** Deletes an item in the trash for good and reclaims blobs nothing else uses. */
    async purge(actor: Actor, id: string): Promise<{ success: true }> {
      requirePermission(actor, "file:delete");
      const hashes = tree.tx(() => repo.purge(actor.organizationId, trashed(actor, id).id));
      for (const hash of hashes) await reclaimUnused(repo, deps.blobs, deps.log, hash);
      return { success: true };
    },
  };
}

export type TrashService = ReturnType<typeof createTrashService>;
