import { AppError } from "../../errors.ts";
import { isId, nowIso } from "../../platform/ids.ts";
import { LEVEL } from "../access/access.ts";
import { type Actor, requirePermission } from "../actor.ts";
import { parseInput } from "../parse-input.ts";
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
export function createTrashService(deps: Omit<FilesDeps, "maxUploadBytes" | "reserve">) {
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

  return {
    /** The heads of the caller's deletes (a deleted directory stands for its subtree), newest first. */
    list(actor: Actor, input: unknown): { files: FileDto[]; total: number } {
      requirePermission(actor, "file:read");
      const page = parseInput(PageInput, input ?? {});
      const { rows, total } = repo.trash(actor.organizationId, access.view(actor), actor.userId, page);
      return { files: toFileDtos(db, rows), total };
    },

    /**
     * Restores an item and what was deleted with it: the item in one
     * transaction, the rows below a folder a folder at a time after
     * (subtree-jobs.ts); an item whose name was taken meanwhile stays in the
     * trash.
     */
    restore(actor: Actor, id: string): Promise<FileDto> {
      requirePermission(actor, "file:write");
      const org = actor.organizationId;
      return tree.exclusive(org, async () => {
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
          const at = nowIso();
          const batch = row.delete_batch ?? "";
          repo.restore(org, [row.id], batch, at);
          if (row.type === "directory") tree.jobs.begin(org, row.id, { kind: "restore", batch, at });
          return row;
        });
        await tree.jobs.finish(org);
        return toTaggedFileDto(db, repo.get(org, row.id) as FileRow);
      });
    },

    /**
     * Deletes an item in the trash for good, from the bottom of its subtree
     * up a folder at a time (subtree-jobs.ts), and reclaims the blobs nothing
     * else uses as it goes.
     */
    purge(actor: Actor, id: string): Promise<{ success: true }> {
      requirePermission(actor, "file:delete");
      const org = actor.organizationId;
      return tree.exclusive(org, async () => {
        tree.tx(() => tree.jobs.begin(org, trashed(actor, id).id, { kind: "purge" }));
        await tree.jobs.finish(org);
        return { success: true as const };
      });
    },
  };
}

export type TrashService = ReturnType<typeof createTrashService>;
