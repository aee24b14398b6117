import { changeWatch } from "../../db/change-watch.ts";
import { type Db, writeTransaction } from "../../db/client.ts";
import { conflictOnUnique } from "../../db/unique.ts";
import { AppError, type ErrorCode } from "../../errors.ts";
import { isId, newId, nowIso } from "../../platform/ids.ts";
import { type Access, type AccessView, aclCondition, LEVEL, type Level } from "../access/access.ts";
import type { Actor } from "../actor.ts";
import type { TagDto } from "../tags/tags.repo.ts";
import type { FileRow, FilesRepo, NewFileRow } from "./files.repo.ts";
import { childPath } from "./names.ts";
import { createRecordCache } from "./record-cache.ts";
import { createSubtreeJobs, type SubtreeJobs } from "./subtree-jobs.ts";

/** Content for a copied row that has no blob of its own (a watched file ingested beforehand). */
type BlobOf = (row: FileRow) => { hash: string; size: number } | undefined;

/** Bounds on the shape of the tree (config `storage.*`). */
export interface TreeLimits {
  maxCopyItems: number;
  maxPathLength: number;
  maxDepth: number;
}

/** `delete_batch` prefix of the hidden rows of a copy being written. */
export const COPY_BATCH = "copy:";
/** Rows a copy writes per transaction before it lets other work run. */
const COPY_CHUNK = 1000;
/** Children read per statement by a subtree walk (readableSubtree). */
const WALK_PAGE = 1000;
/** Rows (and folders) a subtree walk reads between two yields to the event loop. */
const WALK_SLICE = 2000;
/** Top-level items an organization's deletion purges per round of jobs. */
const TOP_LEVEL_BATCH = 256;

/** How deep a path is: "/a" is 1, "/a/b" is 2. */
const depthOf = (path: string) => {
  let n = 0;
  for (let i = 0; i < path.length; i++) if (path.charCodeAt(i) === 47) n++;
  return n;
};

/**
 * The rules of one organization's tree, shared by the file, directory and
 * trash operations: lookups that answer 404 for other organizations, parent
 * checks, read-only watched rows, name clashes, moves, copies and deletes.
 * A change to an item runs in one SQLite transaction (its checks, against
 * cycles too, in the same one); what follows in the rows below a folder is
 * a subtree job (subtree-jobs.ts), and those run one at a time per
 * organization (`exclusive`).
 */
export function createTree(
  db: Db,
  repo: FilesRepo,
  limits: TreeLimits,
  access: Access,
  jobs: SubtreeJobs = createSubtreeJobs(db),
) {
  const tx = <T>(fn: () => T): T => writeTransaction(db.$client, fn);
  const tooManyToCopy = () =>
    new AppError(
      "VALIDATION",
      `a copy may create at most ${limits.maxCopyItems} items (storage.max_copy_items); this one has more`,
      { max_copy_items: limits.maxCopyItems },
    );

  /**
   * A live row the actor holds `need` on (folder grants): 404 when missing,
   * another organization's or unreadable to the actor; 403 when readable
   * but `need` is more.
   */
  function live(
    actor: Actor,
    id: string,
    code: ErrorCode = "FILE_NOT_FOUND",
    need: Level = LEVEL.read,
  ): FileRow {
    const row = isId(id) ? repo.get(actor.organizationId, id) : undefined;
    return checked(actor, row, code, need);
  }

  const records = createRecordCache<{ row: FileRow; tags: TagDto[] }>(changeWatch(db.$client));

  /**
   * `live` (read level, 404 code FILE_NOT_FOUND) with the row's tags, read in
   * one statement and reused until the database changes (record-cache.ts):
   * for reads only (a File record, content to send); the result is shared
   * and must not be changed.
   */
  function liveTagged(actor: Actor, id: string): { row: FileRow; tags: TagDto[] } {
    const org = actor.organizationId;
    const hit = isId(id) ? records.get(org, id, () => repo.getLiveTagged(org, id)) : undefined;
    checked(actor, hit?.row, "FILE_NOT_FOUND", LEVEL.read);
    return hit!;
  }

  function checked(actor: Actor, row: FileRow | undefined, code: ErrorCode, need: Level): FileRow {
    if (!row)
      throw new AppError(code, code === "DIRECTORY_NOT_FOUND" ? "directory not found" : "file not found");
    access.check(actor, row, need, code);
    return row;
  }

  function liveDir(actor: Actor, id: string, need: Level = LEVEL.read): FileRow {
    const row = live(actor, id, "DIRECTORY_NOT_FOUND", need);
    if (row.type !== "directory") throw new AppError("DIRECTORY_NOT_FOUND", "directory not found");
    return row;
  }

  /**
   * The parent directory of a place; null is the top. Missing or unreadable
   * → 404, not a directory → 400, short of `need` (write by default: a new
   * item goes there) → 403.
   */
  function parent(
    actor: Actor,
    parentId: string | null | undefined,
    need: Level = LEVEL.write,
  ): FileRow | null {
    if (parentId === null || parentId === undefined) {
      if (need > LEVEL.read && access.view(actor).top < need) {
        throw new AppError(
          "PERMISSION_DENIED",
          "you may not change the top of the tree (write access needed)",
        );
      }
      return null;
    }
    const row = live(actor, parentId, "DIRECTORY_NOT_FOUND");
    if (row.type !== "directory")
      throw new AppError("VALIDATION", "parent is not a directory", { parent_id: parentId });
    access.check(actor, row, need, "DIRECTORY_NOT_FOUND");
    return row;
  }

  /** The live child `name` of `parentId` (null = the top) that the actor may read, if any. */
  function child(actor: Actor, parentId: string | null, name: string): FileRow | undefined {
    const row = repo.liveChild(actor.organizationId, parentId, name);
    return row && access.levelOf(actor, row) >= LEVEL.read ? row : undefined;
  }

  /** Personal folders stay where they are, under their name. */
  function notHome(row: FileRow): void {
    if (row.home_of)
      throw new AppError("PERMISSION_DENIED", "a personal folder cannot be moved, renamed or deleted");
  }

  /** The acl id of the row's parent (what it inherits when it has no list of its own). */
  function parentAcl(org: string, row: FileRow): string | null {
    if (row.acl_id !== row.id) return row.acl_id;
    return row.parent_id ? (repo.get(org, row.parent_id, true)?.acl_id ?? null) : null;
  }

  /**
   * Refuses a place in the tree past the limits: `path` is where an item goes,
   * `below` how much its subtree adds (longest extra characters, extra levels).
   * Long paths cost every row they are stored and indexed in.
   */
  function fits(path: string, below: { chars: number; levels: number } = { chars: 0, levels: 0 }): void {
    const length = path.length + below.chars;
    if (length > limits.maxPathLength) {
      throw new AppError(
        "VALIDATION",
        `path too long: ${length} characters (storage.max_path_length is ${limits.maxPathLength})`,
        {
          max_path_length: limits.maxPathLength,
        },
      );
    }
    const depth = depthOf(path) + below.levels;
    if (depth > limits.maxDepth) {
      throw new AppError(
        "VALIDATION",
        `tree too deep: ${depth} levels (storage.max_depth is ${limits.maxDepth})`,
        {
          max_depth: limits.maxDepth,
        },
      );
    }
  }

  /** Watched-folder rows mirror the host: the tree may not change them. */
  function writable(row: Pick<FileRow, "watched_folder_id"> | null, what = "item"): void {
    if (row?.watched_folder_id) {
      throw new AppError("READ_ONLY", `this ${what} is in a watched folder and is read-only`);
    }
  }

  /**
   * 409 when a live item of `parent` has `name` (other than `exceptId`). Its
   * id goes with the answer only to a `viewer` who may read it: to anyone
   * else it is an item they must not learn anything of.
   */
  function nameFree(
    orgId: string,
    parentId: string | null,
    name: string,
    exceptId?: string,
    viewer?: Actor,
  ): void {
    const clash = repo.liveChild(orgId, parentId, name);
    if (clash && clash.id !== exceptId) {
      const readable = viewer !== undefined && access.levelOf(viewer, clash) >= LEVEL.read;
      throw new AppError(
        "CONFLICT",
        `an item named ${JSON.stringify(name)} already exists here`,
        readable ? { existing_id: clash.id } : undefined,
      );
    }
  }

  /**
   * Inserts a new item `name` under `parent`, owned by the actor (call inside
   * `tx`): 409 when a live sibling has the name, whether found first or
   * caught by the unique index. Returns the new id.
   */
  function insertChild(
    actor: Actor,
    parent: FileRow | null,
    name: string,
    content: Pick<NewFileRow, "type" | "size" | "mime_type" | "hash" | "blob_hash">,
    now = nowIso(),
  ): string {
    const org = actor.organizationId;
    nameFree(org, parent?.id ?? null, name, undefined, actor);
    fits(childPath(parent?.path, name));
    const id = newId();
    conflictOnUnique("an item with that name already exists here", () =>
      repo.insert({
        id,
        organization_id: org,
        owner_id: actor.userId,
        parent_id: parent?.id ?? null,
        name,
        path: childPath(parent?.path, name),
        ...content,
        acl_id: parent?.acl_id ?? null,
        created_at: now,
        updated_at: now,
        accessed_at: now,
      }),
    );
    return id;
  }

  /** Refuses to put a directory inside itself or its own subtree (400). */
  function notIntoItself(orgId: string, row: FileRow, target: FileRow | null): void {
    if (row.type === "directory" && target && repo.isSelfOrAncestor(orgId, row.id, target.id)) {
      throw new AppError("VALIDATION", "cannot move or copy a directory into itself or its own subtree");
    }
  }

  /**
   * Tree changes that span several transactions (a folder's move, delete,
   * restore or purge, a copy) run one at a time per organization, in order:
   * none starts on rows another is still writing. Each first finishes any
   * job a failure left unfinished.
   */
  const queues = new Map<string, Promise<unknown>>();
  function exclusive<T>(org: string, fn: () => Promise<T>): Promise<T> {
    const run = async () => {
      await jobs.finish(org);
      return fn();
    };
    const result = (queues.get(org) ?? Promise.resolve()).then(run, run);
    const tail = result.catch(() => undefined);
    queues.set(org, tail);
    void tail.then(() => {
      if (queues.get(org) === tail) queues.delete(org);
    });
    return result;
  }

  /**
   * Whether a folder with its own list lies at or below `dirId` (trashed rows
   * too) on which the viewer holds less than write: a few dozen lists in a
   * household, each a walk up its ancestors.
   */
  function holdsUnwritable(org: string, v: AccessView, dirId: string): boolean {
    const below = [...v.unreadable, ...[...v.levels].filter(([, l]) => l < LEVEL.write).map(([id]) => id)];
    return below.some((root) => repo.isSelfOrAncestor(org, dirId, root));
  }

  /**
   * Renames and/or moves `id`. Its own row changes in one transaction; the
   * rows below a folder follow a folder at a time (subtree-jobs.ts), and
   * the returned promise settles once they all have.
   */
  function relocate(
    actor: Actor,
    id: string,
    to: { name?: string; parentId?: string | null },
  ): Promise<FileRow> {
    const org = actor.organizationId;
    return exclusive(org, async () => {
      const before = live(actor, id, "FILE_NOT_FOUND", LEVEL.write);
      const moving = to.parentId !== undefined && (to.parentId || null) !== before.parent_id;
      // A folder's contents change hands with it (into a personal folder, its owner manages all of it):
      // as for a delete, the mover must be able to change all of it, what is in the trash too.
      if (moving && before.type === "directory" && holdsUnwritable(org, access.view(actor), before.id)) {
        throw new AppError("PERMISSION_DENIED", "you may not move this: it holds items you may not change");
      }
      // Read before the move, between other requests: what the subtree adds to the new path's length and depth.
      const below = before.type === "directory" ? await jobs.extent(org, before.id) : undefined;
      const row = tx(() => {
        const row = live(actor, id, "FILE_NOT_FOUND", LEVEL.write);
        notHome(row);
        writable(row);
        const target = to.parentId === undefined ? parent(actor, row.parent_id) : parent(actor, to.parentId);
        writable(target, "destination");
        notIntoItself(org, row, target);
        const name = to.name ?? row.name;
        const parentId = target?.id ?? null;
        if (name === row.name && parentId === row.parent_id) return undefined;
        // Moving takes the item out of where it is: write is needed there, not only on the item (a folder
        // with a list of its own that lets the mover write, inside one that does not, stays where it is).
        if (
          parentId !== row.parent_id &&
          access.levelIn(access.view(actor), { acl_id: parentAcl(org, row) }) < LEVEL.write
        ) {
          throw new AppError(
            "PERMISSION_DENIED",
            "you may not move this out of its folder (write access needed there)",
          );
        }
        nameFree(org, parentId, name, row.id, actor);
        const path = childPath(target?.path, name);
        fits(path, row.type === "directory" ? below : undefined);
        const reassign = access.moved(org, row, parentAcl(org, row), target?.acl_id ?? null);
        conflictOnUnique("an item with that name already exists here", () =>
          repo.update(org, row.id, {
            name,
            parent_id: parentId,
            path,
            updated_at: nowIso(),
            ...(reassign ? { acl_id: reassign.to } : {}),
          }),
        );
        if (row.type === "directory") jobs.begin(org, row.id, { kind: "move", reassign });
        return row;
      });
      if (row?.type === "directory") await jobs.finish(org);
      return repo.get(org, id) as FileRow;
    });
  }

  /**
   * Copies `id` under `parentId` as `name`: a file shares its blob, a
   * directory copies its live subtree. `blobOf` supplies content for rows
   * that have no blob (watched files, ingested by the caller beforehand).
   * At most `maxCopyItems` rows (400 beyond). A small copy is one
   * transaction; a large one writes its rows hidden, COPY_CHUNK per
   * transaction, yielding in between so other requests go on, and publishes
   * them all in one statement at the end: nobody ever sees half a copy, and
   * a crash leaves only hidden rows that the next start removes.
   */
  function copy(
    actor: Actor,
    id: string,
    to: { parentId: string | null; name?: string },
    blobOf: BlobOf = () => undefined,
  ): Promise<FileRow> {
    return exclusive(actor.organizationId, () => copyNow(actor, id, to, blobOf));
  }

  async function copyNow(
    actor: Actor,
    id: string,
    to: { parentId: string | null; name?: string },
    blobOf: BlobOf,
  ): Promise<FileRow> {
    const org = actor.organizationId;
    const checkTarget = () => {
      const src = live(actor, id);
      const target = parent(actor, to.parentId);
      writable(target, "destination");
      notIntoItself(org, src, target);
      const name = to.name ?? src.name;
      nameFree(org, target?.id ?? null, name, undefined, actor);
      return {
        src,
        name,
        parentId: target?.id ?? null,
        path: childPath(target?.path, name),
        acl: target?.acl_id ?? null,
      };
    };
    // The target first (a bad one answers before any walk), then the rows the copy would hold,
    // read in slices outside any transaction, then the target again with the limits of those rows.
    const src = tx(checkTarget).src;
    const rows = await copyable(actor, src);
    const plan = tx(() => {
      const plan = checkTarget();
      // Moves and renames wait for this copy (`exclusive`); a rename by a watched folder's scan does not.
      if (plan.src.path !== src.path)
        throw new AppError("CONFLICT", "the item changed while the copy was prepared; try again");
      let longest = 0;
      let levels = 0;
      for (const r of rows) {
        longest = Math.max(longest, r.path.length);
        levels = Math.max(levels, depthOf(r.path) - depthOf(src.path));
      }
      fits(plan.path, { chars: Math.max(0, longest - src.path.length), levels });
      return plan;
    });
    if (rows.length <= COPY_CHUNK) {
      return tx(() => {
        const fresh = checkTarget();
        const rootId = conflictOnUnique("an item with that name already exists here", () =>
          insertCopies(actor, rows, fresh, blobOf, undefined),
        );
        return repo.get(org, rootId) as FileRow;
      });
    }
    const batch = `${COPY_BATCH}${newId()}`;
    const ids = new Map<string, string>();
    try {
      for (let i = 0; i < rows.length; i += COPY_CHUNK) {
        tx(() => insertCopies(actor, rows.slice(i, i + COPY_CHUNK), plan, blobOf, { batch, ids }));
        await new Promise((resolve) => setImmediate(resolve));
      }
      return tx(() => {
        const fresh = checkTarget();
        if (fresh.parentId !== plan.parentId || fresh.path !== plan.path) {
          throw new AppError("CONFLICT", "the destination changed while the copy was written; try again");
        }
        conflictOnUnique("an item with that name already exists here", () => repo.publishBatch(org, batch));
        return repo.get(org, ids.get(plan.src.id) as string) as FileRow;
      });
    } catch (err) {
      const rootId = ids.get(plan.src.id);
      if (rootId) tx(() => repo.purge(org, rootId));
      throw err;
    }
  }

  /**
   * Inserts copies of `rows` (parents first) under the plan's new root;
   * returns the new root's id. `hidden` writes them deleted in a copy batch
   * (a large copy in chunks; `ids` maps source ids to copies across chunks).
   */
  function insertCopies(
    actor: Actor,
    rows: readonly FileRow[],
    plan: { src: FileRow; name: string; parentId: string | null; path: string; acl: string | null },
    blobOf: BlobOf,
    hidden: { batch: string; ids: Map<string, string> } | undefined,
  ): string {
    const ids = hidden?.ids ?? new Map<string, string>();
    const now = nowIso();
    for (const r of rows) {
      const isRoot = r.id === plan.src.id;
      const dir = r.type === "directory";
      const content = dir ? undefined : r.blob_hash ? { hash: r.hash, size: r.size } : blobOf(r);
      if (!dir && !content)
        throw new AppError("VALIDATION", `cannot copy ${r.path}: its content is unavailable`);
      const copyId = newId();
      ids.set(r.id, copyId);
      repo.insert({
        id: copyId,
        organization_id: actor.organizationId,
        owner_id: actor.userId,
        parent_id: isRoot ? plan.parentId : (ids.get(r.parent_id ?? "") ?? null),
        name: isRoot ? plan.name : r.name,
        path: plan.path + r.path.slice(plan.src.path.length),
        type: dir ? "directory" : "file",
        size: content?.size ?? 0,
        mime_type: r.mime_type,
        hash: content?.hash ?? "",
        blob_hash: content?.hash ?? null,
        // A copy takes the grants of where it lands.
        acl_id: plan.acl,
        created_at: now,
        updated_at: now,
        accessed_at: now,
        ...(hidden ? { is_deleted: true, deleted_at: now, delete_batch: hidden.batch } : {}),
      });
    }
    return ids.get(plan.src.id) as string;
  }

  /**
   * The live rows of `root`'s subtree the actor may read, parents before
   * children; an unreadable folder hides its subtree, even parts of it
   * readable on their own (those are reached by id or search, not here).
   * Undefined when there are more than `max`, found before any row is read
   * (a folder of a million rows is never read into memory to be refused).
   * `dirs`: directories only; `depth` > 0: that many levels below at most.
   */
  async function readableSubtree(
    actor: Actor,
    root: FileRow,
    opts: { max: number; dirs?: boolean; depth?: number },
  ): Promise<FileRow[] | undefined>;
  /** The same, each row kept as `pick` makes it (a zip keeps a few fields of 100,000 rows, not the rows). */
  async function readableSubtree<T>(
    actor: Actor,
    root: FileRow,
    opts: { max: number; dirs?: boolean; depth?: number },
    pick: (row: FileRow) => T,
  ): Promise<T[] | undefined>;
  async function readableSubtree<T>(
    actor: Actor,
    root: FileRow,
    opts: { max: number; dirs?: boolean; depth?: number },
    pick: (row: FileRow) => T = (row) => row as T,
  ): Promise<T[] | undefined> {
    const org = actor.organizationId;
    const acl = aclCondition(access.view(actor), "f.acl_id");
    // Folder by folder, level by level (so parents come before children), a page of ids at a
    // time, yielding to the event loop every WALK_SLICE steps: one statement over a 100k-row
    // subtree held the event loop ~0.8 s, and every other request with it.
    const ids: string[] = [root.id];
    let frontier = root.type === "directory" ? [root.id] : [];
    let steps = 0;
    const step = async (n: number) => {
      steps += n;
      if (steps >= WALK_SLICE) {
        steps = 0;
        await new Promise((resolve) => setImmediate(resolve));
      }
    };
    for (let level = 0; frontier.length > 0 && (!opts.depth || level < opts.depth); level++) {
      const next: string[] = [];
      for (const parentId of frontier) {
        for (let after = 0; ; ) {
          const page = repo.readableChildIds(org, parentId, acl, after, WALK_PAGE, opts.dirs);
          for (const c of page) {
            ids.push(c.id);
            if (c.type === "directory") next.push(c.id);
          }
          if (ids.length > opts.max) return undefined;
          await step(page.length + 1);
          if (page.length < WALK_PAGE) break;
          after = (page.at(-1) as { r: number }).r;
        }
      }
      frontier = next;
    }
    const out: T[] = [];
    for (let i = 0; i < ids.length; i += 500) {
      const batch = ids.slice(i, i + 500);
      const rows = new Map(repo.rowsByIds(org, batch).map((r) => [r.id, r]));
      for (const id of batch) {
        const r = rows.get(id);
        if (r) out.push(pick(r));
      }
      await step(500);
    }
    return out;
  }

  /** The rows a copy of `src` would hold (what `copy` reads): refused past storage.max_copy_items. */
  async function copyable(actor: Actor, src: FileRow): Promise<FileRow[]> {
    const rows = await readableSubtree(actor, src, { max: limits.maxCopyItems });
    if (!rows) throw tooManyToCopy();
    return rows;
  }

  /**
   * Soft-deletes a file (not a directory) in the caller's transaction: an
   * upload replacing one.
   */
  function softDeleteFile(actor: Actor, row: FileRow): number {
    notHome(row);
    writable(row);
    if (access.levelOf(actor, row) < LEVEL.write) {
      throw new AppError("PERMISSION_DENIED", "you may not delete this: it holds items you may not change");
    }
    return repo.softDelete(actor.organizationId, [row.id], newId(), nowIso());
  }

  /**
   * Soft-deletes `row` and its live subtree with one batch id (so restore
   * brings back exactly them). A non-empty directory needs `recursive`. The
   * subtree is checked first (read a folder at a time), the row deleted in
   * one transaction, the rows below it a folder at a time after
   * (subtree-jobs.ts); answers how many rows were deleted.
   */
  function softDelete(actor: Actor, row: FileRow, recursive: boolean): Promise<number> {
    const org = actor.organizationId;
    if (row.type !== "directory") return Promise.resolve(tx(() => softDeleteFile(actor, row)));
    return exclusive(org, async () => {
      notHome(row);
      writable(row);
      const v = access.view(actor);
      const below = await jobs.inspect(
        org,
        row.id,
        (acl) => access.levelIn(v, { acl_id: acl }) >= LEVEL.write,
      );
      if (below.unwritable || access.levelIn(v, row) < LEVEL.write) {
        throw new AppError("PERMISSION_DENIED", "you may not delete this: it holds items you may not change");
      }
      if (below.rows > 0 && !recursive) {
        throw new AppError(
          "VALIDATION",
          "directory is not empty; pass recursive=true to delete it with its contents",
        );
      }
      if (below.watched) {
        throw new AppError(
          "READ_ONLY",
          "the subtree holds a watched folder; remove the watched folder first",
        );
      }
      const batch = newId();
      const at = nowIso();
      const n = tx(() => {
        const fresh = live(actor, row.id, "FILE_NOT_FOUND", LEVEL.write);
        notHome(fresh);
        writable(fresh);
        jobs.begin(org, fresh.id, { kind: "delete", batch, at });
        return repo.softDelete(org, [fresh.id], batch, at);
      });
      return n + (await jobs.finish(org));
    });
  }

  /**
   * Every row of the organization, purged for good from the bottom of each
   * top-level item up, a folder at a time (subtree-jobs.ts), the blobs no
   * other row uses reclaimed as it goes: before the organization itself is
   * deleted, whose rows would otherwise cascade in one statement holding the
   * server, their blobs left on disk. Answers how many rows went.
   */
  function purgeAll(org: string): Promise<number> {
    return exclusive(org, async () => {
      let n = 0;
      for (;;) {
        const tops = repo.topLevelIds(org, TOP_LEVEL_BATCH);
        if (tops.length === 0) return n;
        tx(() => {
          for (const id of tops) jobs.begin(org, id, { kind: "purge" });
        });
        n += await jobs.finish(org);
      }
    });
  }

  return {
    tx,
    live,
    liveTagged,
    liveDir,
    child,
    parent,
    writable,
    nameFree,
    insertChild,
    relocate,
    copy,
    readableSubtree,
    copyable,
    softDelete,
    softDeleteFile,
    exclusive,
    jobs,
    purgeAll,
  };
}

export type Tree = ReturnType<typeof createTree>;
