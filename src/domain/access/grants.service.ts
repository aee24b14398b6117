import { AppError } from "../../errors.ts";
import { newId, nowIso } from "../../platform/ids.ts";
import { type Actor, requirePermission } from "../actor.ts";
import type { FileRow, FilesRepo } from "../files/files.repo.ts";
import { DIRECTORY_MIME } from "../files/mime.ts";
import type { Tree } from "../files/tree.ts";
import { parseInput } from "../parse-input.ts";
import type { AccessRepo } from "./access.repo.ts";
import { type Access, LEVEL, LEVEL_NAMES, type Level, TOP } from "./access.ts";
import { type GrantInputT, type GrantsDto, GrantsQuery, SetGrantsInput } from "./grants.schemas.ts";

const LEVEL_OF = { read: LEVEL.read, write: LEVEL.write, manage: LEVEL.manage } as const;

/**
 * Folder grants and personal folders (docs/access.md), shared by REST and
 * RPC: reading a folder's list needs read on it, changing it needs manage.
 * A folder that takes a list of its own (or gives it up) changes its own row
 * and its list in one transaction; the rows below that inherited follow a
 * folder at a time (a subtree job, subtree-jobs.ts), each governed by the old
 * list until its turn, and the change answers once they all have. Changes
 * run in the organization's queue of tree changes (`tree.exclusive`): a
 * move or delete never meets a subtree half re-governed.
 */
export function createGrantsService(deps: {
  repo: FilesRepo;
  tree: Tree;
  access: Access;
  accessRepo: AccessRepo;
}) {
  const { repo, tree, access, accessRepo } = deps;
  const { jobs } = tree;

  /** The folder asked about (null = the top), which the actor holds `need` on. */
  function folder(actor: Actor, id: string | null | undefined, need: Level): FileRow | null {
    if (id === null || id === undefined) {
      if (access.view(actor).top < need) {
        throw new AppError("PERMISSION_DENIED", "you may not manage the top of the tree");
      }
      return null;
    }
    return tree.liveDir(actor, id, need);
  }

  /** Checks subjects exist in the organization and folds duplicates (the highest level wins). */
  function normalize(actor: Actor, grants: readonly GrantInputT[]) {
    const known = new Map(accessRepo.subjects(actor.organizationId).map((s) => [`${s.kind}:${s.id}`, s]));
    const out = new Map<string, { subject_type: string; subject_id: string; level: number }>();
    for (const g of grants) {
      const subjectId = g.subject_type === "everyone" ? "" : (g.subject_id ?? "");
      if (g.subject_type !== "everyone" && !known.has(`${g.subject_type}:${subjectId}`)) {
        throw new AppError("VALIDATION", `no such ${g.subject_type} in this organization`, {
          subject_id: subjectId,
        });
      }
      const key = `${g.subject_type}:${subjectId}`;
      const level = LEVEL_OF[g.level];
      if ((out.get(key)?.level ?? 0) < level)
        out.set(key, { subject_type: g.subject_type, subject_id: subjectId, level });
    }
    return [...out.values()];
  }

  function describe(actor: Actor, dir: FileRow | null): GrantsDto {
    const org = actor.organizationId;
    const governedBy = dir ? dir.acl_id : null;
    const listId = governedBy ?? TOP;
    const names = new Map(accessRepo.subjects(org).map((s) => [`${s.kind}:${s.id}`, s.name]));
    const grants = accessRepo
      .grants(org)
      .filter((g) => g.folder_id === listId)
      .map((g) => ({
        subject_type: g.subject_type,
        subject_id: g.subject_id,
        subject_name:
          g.subject_type === "everyone"
            ? "Everyone"
            : (names.get(`${g.subject_type}:${g.subject_id}`) ?? "(removed)"),
        level: LEVEL_NAMES[g.level] as "read" | "write" | "manage",
      }));
    const topDefault = !dir && !access.isRoot(org, TOP);
    const owner = access.homeUserOf(org, governedBy);
    return {
      directory_id: dir?.id ?? null,
      own: dir ? dir.acl_id === dir.id : !topDefault,
      governed_by: governedBy,
      personal: owner !== null,
      owner_id: owner,
      admins_manage: owner === null,
      grants: topDefault
        ? [{ subject_type: "everyone", subject_id: "", subject_name: "Everyone", level: "write" }]
        : grants,
      your_level: LEVEL_NAMES[dir ? access.levelOf(actor, dir) : access.view(actor).top],
    };
  }

  /** Creates the actor's personal folder when it has none yet; returns its id. */
  function ensureHome(actor: Actor): string {
    const org = actor.organizationId;
    const existing = accessRepo.homeOf(org, actor.userId);
    if (existing) return existing;
    const id = newId();
    const now = nowIso();
    tree.tx(() => {
      if (accessRepo.homeOf(org, actor.userId)) return;
      repo.insert({
        id,
        organization_id: org,
        owner_id: actor.userId,
        parent_id: null,
        name: actor.username,
        path: `/~${actor.username}`,
        type: "directory",
        size: 0,
        mime_type: DIRECTORY_MIME,
        acl_id: id,
        home_of: actor.userId,
        created_at: now,
        updated_at: now,
        accessed_at: now,
      });
      accessRepo.setList(org, id, actor.userId, [], now);
    });
    access.invalidate();
    return accessRepo.homeOf(org, actor.userId) ?? id;
  }

  /**
   * Gives `dir` (null = the top) its own list (inside the caller's
   * transaction). The rows below that inherited its old one are left to a
   * grant job (`below: "job"`, then `jobs.finish`), or to nothing when the
   * folder was just made and has none (`"none"`).
   */
  function writeList(
    org: string,
    dir: FileRow | null,
    grants: ReturnType<typeof normalize>,
    below: "job" | "none",
  ): void {
    const now = nowIso();
    if (!dir) {
      accessRepo.setList(org, TOP, null, grants, now);
    } else {
      accessRepo.setList(org, dir.id, access.homeUserOf(org, dir.acl_id), grants, now);
      if (dir.acl_id !== dir.id) {
        repo.update(org, dir.id, { acl_id: dir.id });
        if (below === "job") jobs.begin(org, dir.id, { kind: "grant", from: dir.acl_id, to: dir.id });
      }
    }
    access.invalidate();
  }

  /** The folder's grants as they are once `change` and the subtree job it began (if any) are done. */
  function changed(actor: Actor, change: () => FileRow | null): Promise<GrantsDto> {
    const org = actor.organizationId;
    return tree.exclusive(org, async () => {
      const dir = tree.tx(change);
      if (dir) {
        await jobs.finish(org);
        access.invalidate();
      }
      return describe(actor, dir ? (repo.get(org, dir.id) as FileRow) : null);
    });
  }

  return {
    ensureHome,

    /** The caller's personal folder (created on first use). */
    home(actor: Actor): string {
      requirePermission(actor, "file:read");
      return ensureHome(actor);
    },

    /** The list that applies to a folder (GET /grants). */
    get(actor: Actor, input: unknown): GrantsDto {
      requirePermission(actor, "file:read");
      const q = parseInput(GrantsQuery, input ?? {}, "query");
      return describe(actor, folder(actor, q.directory_id, LEVEL.read));
    },

    /** Gives a folder (or the top) its own list, replacing what it had or inherited (PUT /grants). */
    set(actor: Actor, input: unknown): Promise<GrantsDto> {
      requirePermission(actor, "file:read");
      const q = parseInput(SetGrantsInput, input ?? {}, "body");
      return changed(actor, () => {
        const dir = folder(actor, q.directory_id, LEVEL.manage);
        writeList(actor.organizationId, dir, normalize(actor, q.grants), "job");
        return dir;
      });
    },

    /**
     * Drops a folder's own list: it inherits again (DELETE /grants); the top
     * returns to its default. The list goes in the job's last transaction,
     * once no row below is governed by it.
     */
    clear(actor: Actor, input: unknown): Promise<GrantsDto> {
      requirePermission(actor, "file:read");
      const q = parseInput(GrantsQuery, input ?? {}, "query");
      const org = actor.organizationId;
      return changed(actor, () => {
        const dir = folder(actor, q.directory_id, LEVEL.manage);
        if (!dir) {
          accessRepo.dropList(org, TOP);
        } else {
          if (dir.home_of) throw new AppError("VALIDATION", "a personal folder always keeps its own list");
          if (dir.acl_id === dir.id) {
            const parentAcl = dir.parent_id ? (repo.get(org, dir.parent_id)?.acl_id ?? null) : null;
            repo.update(org, dir.id, { acl_id: parentAcl });
            jobs.begin(org, dir.id, { kind: "grant", from: dir.id, to: parentAcl });
          }
        }
        access.invalidate();
        return dir;
      });
    },

    /** Who grants can name: everyone, the organization's users and groups. */
    subjects(actor: Actor) {
      requirePermission(actor, "file:read");
      return {
        subjects: [
          { subject_type: "everyone" as const, subject_id: "", subject_name: "Everyone" },
          ...accessRepo
            .subjects(actor.organizationId)
            .map((s) => ({ subject_type: s.kind, subject_id: s.id, subject_name: s.name })),
        ],
      };
    },

    /**
     * Gives a new watched folder's mount directory its grants (inside the
     * creating transaction, before any row lies below it): the folder's
     * admin decides who sees the drive.
     */
    initial(actor: Actor, dir: FileRow, grants: readonly GrantInputT[]): void {
      writeList(actor.organizationId, dir, normalize(actor, grants), "none");
    },
  };
}

export type GrantsService = ReturnType<typeof createGrantsService>;
