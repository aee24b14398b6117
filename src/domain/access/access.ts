import { AppError, type ErrorCode } from "../../errors.ts";
import { type Actor, can } from "../actor.ts";
import type { AccessRepo, AccessRootRow, GrantRow } from "./access.repo.ts";

/**
 * What a user may do in a folder, in increasing order: each level includes
 * the ones below it (docs/access.md).
 *
 * - read: list, search, preview, stream, download;
 * - write: upload, create folders, rename, move, copy in, tag, trash;
 * - manage: change the folder's grants, restore and purge from its trash.
 */
export const LEVEL = { none: 0, read: 1, write: 2, manage: 3 } as const;
export type Level = (typeof LEVEL)[keyof typeof LEVEL];
export const LEVEL_NAMES = ["none", "read", "write", "manage"] as const;
export type LevelName = (typeof LEVEL_NAMES)[number];

/** The top's list when an organization never set one: everyone writes (the seed's behaviour). */
export const DEFAULT_TOP_LEVEL: Level = LEVEL.write;

/** "" stands for the organization's top in access_lists. */
export const TOP = "";

/** A row's place in the grants: the access root that governs it (null = the top). */
export interface Governed {
  acl_id: string | null;
}

/** What one actor may do across the organization, computed once per request. */
export interface AccessView {
  /** Level on rows governed by the top's list. */
  top: Level;
  /** Level on each access root of the organization (absent = none). */
  levels: ReadonlyMap<string, Level>;
  /** JSON arrays of the access roots at each level or above, for SQL (`json_each`). */
  atLeast: Record<1 | 2 | 3, string>;
  /** The organization's access roots (the top aside) this actor cannot read. */
  unreadable: readonly string[];
}

interface OrgLists {
  epoch: number;
  roots: Map<string, AccessRootRow>;
  grants: Map<string, GrantRow[]>;
  hasTop: boolean;
}

/**
 * The grant rules: an item is governed by the nearest folder at or above it
 * that has a list of its own (its access root, denormalized as
 * `files.acl_id`); that list alone decides, so a subfolder's list can narrow
 * or widen its parent's. A personal folder's owner manages everything in it;
 * organization admins manage every folder outside personal folders and
 * nothing inside them. Every lookup answers 404 below read, so another
 * person's private file looks exactly like a missing one.
 */
export function createAccess(repo: AccessRepo) {
  let epoch = 0;
  const orgs = new Map<string, OrgLists>();

  function listsOf(orgId: string): OrgLists {
    const cached = orgs.get(orgId);
    if (cached?.epoch === epoch) return cached;
    const roots = new Map(repo.roots(orgId).map((r) => [r.folder_id, r]));
    const grants = new Map<string, GrantRow[]>();
    for (const g of repo.grants(orgId)) {
      const list = grants.get(g.folder_id);
      if (list) list.push(g);
      else grants.set(g.folder_id, [g]);
    }
    const fresh = { epoch, roots, grants, hasTop: roots.has(TOP) };
    if (orgs.size > 1000) orgs.clear();
    orgs.set(orgId, fresh);
    return fresh;
  }

  /** Whether the actor holds the organization admin's override (outside personal folders). */
  const isOrgAdmin = (actor: Actor) => actor.sharedAdmin ?? can(actor, "org:admin");

  // One view per actor object (one request) and epoch.
  const views = new WeakMap<Actor, { epoch: number; view: AccessView }>();
  function view(actor: Actor): AccessView {
    const memo = views.get(actor);
    if (memo?.epoch === epoch) return memo.view;
    const v = computeView(actor);
    views.set(actor, { epoch, view: v });
    return v;
  }

  function computeView(actor: Actor): AccessView {
    const lists = listsOf(actor.organizationId);
    const groups = new Set(repo.groupsOf(actor.userId));
    const admin = isOrgAdmin(actor);
    const granted = (folderId: string): Level => {
      let best: Level = LEVEL.none;
      for (const g of lists.grants.get(folderId) ?? []) {
        const applies =
          g.subject_type === "everyone" ||
          (g.subject_type === "user" && g.subject_id === actor.userId) ||
          (g.subject_type === "group" && groups.has(g.subject_id));
        if (applies && g.level > best) best = g.level as Level;
      }
      return best;
    };
    const top: Level = admin ? LEVEL.manage : lists.hasTop ? granted(TOP) : DEFAULT_TOP_LEVEL;
    const levels = new Map<string, Level>();
    const at: [string[], string[], string[]] = [[], [], []];
    const unreadable: string[] = [];
    for (const root of lists.roots.values()) {
      if (root.folder_id === TOP) continue;
      const level: Level =
        root.home_user_id === actor.userId
          ? LEVEL.manage
          : admin && root.home_user_id === null
            ? LEVEL.manage
            : granted(root.folder_id);
      if (level === LEVEL.none) {
        unreadable.push(root.folder_id);
        continue;
      }
      levels.set(root.folder_id, level);
      for (let l = 1; l <= level; l++) at[l - 1]!.push(root.folder_id);
    }
    return {
      top,
      levels,
      atLeast: { 1: JSON.stringify(at[0]), 2: JSON.stringify(at[1]), 3: JSON.stringify(at[2]) },
      unreadable,
    };
  }

  /** The home owner of the access root `aclId` (null for the top or a shared folder). */
  const homeUserOf = (orgId: string, aclId: string | null): string | null =>
    aclId === null ? null : (listsOf(orgId).roots.get(aclId)?.home_user_id ?? null);

  const levelIn = (v: AccessView, row: Governed): Level =>
    row.acl_id === null ? v.top : (v.levels.get(row.acl_id) ?? LEVEL.none);

  return {
    view,
    isOrgAdmin,

    /** The actor's level on a row. */
    levelOf: (actor: Actor, row: Governed): Level => levelIn(view(actor), row),

    levelIn,

    /**
     * Throws unless the actor holds `need` on `row`: 404 (`notFound`) below
     * read, as if the row did not exist; 403 above it.
     */
    check(actor: Actor, row: Governed, need: Level, notFound: ErrorCode = "FILE_NOT_FOUND"): void {
      const level = levelIn(view(actor), row);
      if (level >= need) return;
      if (level < LEVEL.read) {
        throw new AppError(
          notFound,
          notFound === "DIRECTORY_NOT_FOUND" ? "directory not found" : "file not found",
        );
      }
      throw new AppError(
        "PERMISSION_DENIED",
        need === LEVEL.manage
          ? "you may not manage this folder (manage access needed)"
          : "you may not change this folder (write access needed)",
      );
    },

    homeUserOf,

    /**
     * Keeps grants in step after `row` moved from under `fromAcl` to under
     * `toAcl` (the acl ids of its old and new parent): access roots inside
     * it learn whose personal folder they now lie in (call inside the move's
     * transaction). Returns the change the rows it governed by inheritance
     * need (acl id `from` becomes `to`: the row itself, then its subtree,
     * written by the move a folder at a time), or undefined when none.
     */
    moved(
      orgId: string,
      row: { id: string; acl_id: string | null },
      fromAcl: string | null,
      toAcl: string | null,
    ): { from: string | null; to: string | null } | undefined {
      if (fromAcl === toAcl) return undefined;
      const toHome = homeUserOf(orgId, toAcl);
      if (homeUserOf(orgId, fromAcl) !== toHome && repo.rehome(orgId, row.id, toHome) > 0) epoch++;
      return row.acl_id !== row.id ? { from: fromAcl, to: toAcl } : undefined;
    },

    /** True when the folder `id` has a list of its own. */
    isRoot: (orgId: string, id: string) => listsOf(orgId).roots.has(id),

    /** Drops cached lists after a change of grants or access roots. */
    invalidate(): void {
      epoch++;
    },
  };
}

export type Access = ReturnType<typeof createAccess>;

/**
 * Whether the viewer reads every row: the top's list and every other one
 * (an admin, or anyone in a household without private folders). Then
 * aclCondition holds for every row, and a caller may leave it out.
 */
export const readsEveryRow = (v: AccessView): boolean => v.top >= 1 && v.unreadable.length === 0;

/**
 * SQL condition: the row behind `column` (an acl_id) is governed by a list
 * the viewer holds at least `need` on. One parameter, a JSON array read once
 * per statement, so the check costs a lookup per row, never a join.
 */
export function aclCondition(
  v: AccessView,
  column: string,
  need: 1 | 2 | 3 = 1,
): { sql: string; params: string[] } {
  const inList = `${column} IN (SELECT value FROM json_each(?))`;
  return {
    sql: v.top >= need ? `(${column} IS NULL OR ${inList})` : inList,
    params: [v.atLeast[need]],
  };
}
