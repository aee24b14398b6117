import { randomBytes } from "node:crypto";
import { and, desc, eq, sql } from "drizzle-orm";
import type { Db } from "../../db/client.ts";
import { shares } from "../../db/schema.ts";
import { AppError } from "../../errors.ts";
import { ExpiringSet } from "../../platform/expiring-set.ts";
import { isId, newId, nowIso } from "../../platform/ids.ts";
import type { PasswordHasher } from "../../platform/passwords.ts";
import { type Access, LEVEL } from "../access/access.ts";
import { type Actor, can, requirePermission } from "../actor.ts";
import { readerActor } from "../auth/reader-actor.ts";
import { hashSecret } from "../auth/tokens.ts";
import type { FileRow, FilesRepo } from "../files/files.repo.ts";
import type { Tree } from "../files/tree.ts";
import { parseInput } from "../parse-input.ts";
import { hasPermission } from "../permissions.ts";
import { permissionsOf, type UsersRepo } from "../users/users.repo.ts";
import { CreateShareInput, type ShareDto } from "./shares.schemas.ts";

const MAX_SHARES_PER_USER = 1000;
/** Members of a shared folder on one page of its public listing. */
const MEMBERS_PAGE = 1000;

export type { ShareDto } from "./shares.schemas.ts";

type ShareRow = typeof shares.$inferSelect;

/** What a public request through a share may reach, as the share's creator reading. */
export interface OpenShare {
  share: ShareRow & {};
  /** A read-only actor of the creator (their grants, checked now). */
  actor: Actor;
  target: FileRow;
}

/**
 * Share links: a file or folder reachable without an account. A share acts
 * as its creator reading (file:read and their folder grants, checked on every
 * request), so it dies when the creator loses the right, is deactivated, or
 * the item is deleted; its owner or an organization admin revokes it.
 */
export function createSharesService(deps: {
  db: Db;
  repo: FilesRepo;
  tree: Tree;
  access: Access;
  users: Pick<UsersRepo, "byId" | "rolesOf">;
  passwords: PasswordHasher;
}) {
  const { db, tree } = deps;
  /** Passwords checked already, by hash of (share, password): a gallery is many requests. */
  const passwordOk = new ExpiringSet(10 * 60_000);
  /** How to stop each download under way, by share id: a revoked link stops at once. */
  const underWay = new Map<string, Set<() => void>>();

  const toDto = (row: ShareRow, target: FileRow | undefined): ShareDto => ({
    id: row.id,
    file_id: row.file_id,
    name: target?.name ?? "",
    type: target?.type === "directory" ? "directory" : "file",
    created_by: row.created_by,
    expires_at: row.expires_at,
    has_password: row.password_hash !== null,
    max_downloads: row.max_downloads,
    download_count: row.download_count,
    allow_upload: row.allow_upload,
    created_at: row.created_at,
    last_accessed_at: row.last_accessed_at,
  });

  /** The creator as a reader, as they are now; undefined when they may no longer read. */
  function creatorActor(row: ShareRow): Actor | undefined {
    const actor = readerActor(deps.users.byId(row.created_by), deps.users);
    return actor?.organizationId === row.organization_id ? actor : undefined;
  }

  return {
    async create(actor: Actor, input: unknown) {
      requirePermission(actor, "file:read");
      const q = parseInput(CreateShareInput, input ?? {}, "body");
      if (q.allow_upload && !q.directory_id)
        throw new AppError("VALIDATION", "only a folder can take uploads");
      const target = q.file_id
        ? tree.live(actor, q.file_id)
        : tree.liveDir(actor, q.directory_id as string, q.allow_upload ? LEVEL.write : LEVEL.read);
      if (q.allow_upload) {
        requirePermission(actor, "file:write");
        tree.writable(target, "folder");
      }
      if (q.expires_at && Date.parse(q.expires_at) <= Date.now()) {
        throw new AppError("VALIDATION", "expires_at is in the past");
      }
      const count = db
        .select({ n: sql<number>`count(*)` })
        .from(shares)
        .where(eq(shares.created_by, actor.userId))
        .get()?.n;
      if ((count ?? 0) >= MAX_SHARES_PER_USER) {
        throw new AppError("LIMIT_REACHED", `at most ${MAX_SHARES_PER_USER} share links per user`);
      }
      const token = randomBytes(24).toString("base64url");
      const row: ShareRow = {
        id: newId(),
        organization_id: actor.organizationId,
        created_by: actor.userId,
        file_id: target.id,
        token_hash: hashSecret(token),
        password_hash: q.password ? await deps.passwords.hash(q.password) : null,
        expires_at: q.expires_at ? new Date(q.expires_at).toISOString() : null,
        max_downloads: q.max_downloads ?? null,
        download_count: 0,
        allow_upload: q.allow_upload ?? false,
        created_at: nowIso(),
        last_accessed_at: null,
      };
      db.insert(shares).values(row).run();
      return {
        ...toDto(row, target),
        token,
        url: `/s/${token}`,
        download_url: `/s/${token}/download`,
      };
    },

    /**
     * The caller's shares; an organization admin sees the organization's, and
     * of an item they may not read (a personal folder's) not its name.
     */
    list(actor: Actor): { shares: ShareDto[] } {
      requirePermission(actor, "file:read");
      const admin = can(actor, "org:admin");
      const rows = db
        .select()
        .from(shares)
        .where(
          admin
            ? eq(shares.organization_id, actor.organizationId)
            : and(eq(shares.organization_id, actor.organizationId), eq(shares.created_by, actor.userId)),
        )
        .orderBy(desc(shares.created_at))
        .all();
      const targets = new Map(
        deps.repo
          .rowsByIds(
            actor.organizationId,
            rows.map((r) => r.file_id),
          )
          .filter((r) => deps.access.levelOf(actor, r) >= LEVEL.read)
          .map((r) => [r.id, r]),
      );
      return { shares: rows.map((r) => toDto(r, targets.get(r.file_id))) };
    },

    /** Revokes a share (its owner, or an organization admin). */
    remove(actor: Actor, id: string): { success: true } {
      requirePermission(actor, "file:read");
      const row = isId(id)
        ? db
            .select()
            .from(shares)
            .where(and(eq(shares.id, id), eq(shares.organization_id, actor.organizationId)))
            .get()
        : undefined;
      if (!row || (row.created_by !== actor.userId && !can(actor, "org:admin"))) {
        throw new AppError("NOT_FOUND", "share not found");
      }
      db.delete(shares).where(eq(shares.id, row.id)).run();
      for (const stop of underWay.get(row.id) ?? []) stop();
      underWay.delete(row.id);
      return { success: true };
    },

    /**
     * Registers a download under way through a share: `stop` is called if the
     * share is revoked before it ends. Returns what to call when it ends.
     */
    underWay(open: OpenShare, stop: () => void): () => void {
      const id = open.share.id;
      const set = underWay.get(id) ?? new Set();
      underWay.set(id, set.add(stop));
      return () => {
        set.delete(stop);
        if (set.size === 0 && underWay.get(id) === set) underWay.delete(id);
      };
    },

    /**
     * A share by its token, for a public request: 404 when unknown, revoked,
     * its item deleted or no longer readable by its creator; 410 when expired
     * or out of downloads; 401 when its password is missing or wrong.
     * `proven` may vouch for the password instead (the page's cookie).
     * `guessing` runs before a password is checked and may refuse (a rate
     * limit): counted before the slow check, a burst of guesses cannot all
     * start before the first is counted.
     */
    async open(
      token: string,
      password: string | undefined,
      proven?: (share: ShareRow) => boolean,
      guessing?: () => void,
    ): Promise<OpenShare> {
      const gone = () => new AppError("NOT_FOUND", "this link does not exist or was revoked");
      if (!/^[A-Za-z0-9_-]{20,64}$/.test(token)) throw gone();
      const share = db
        .select()
        .from(shares)
        .where(eq(shares.token_hash, hashSecret(token)))
        .get();
      if (!share) throw gone();
      if (share.expires_at && Date.parse(share.expires_at) <= Date.now()) {
        throw new AppError("GONE", "this link has expired");
      }
      if (share.max_downloads !== null && share.download_count >= share.max_downloads) {
        throw new AppError("GONE", "this link has reached its download limit");
      }
      const actor = creatorActor(share);
      if (!actor) throw gone();
      let target: FileRow;
      try {
        target = tree.live(actor, share.file_id);
      } catch {
        throw gone();
      }
      if (share.password_hash && !(password === undefined && proven?.(share))) {
        if (!password) throw new AppError("SHARE_PASSWORD_REQUIRED", "this link needs its password");
        const key = hashSecret(`${share.id}\0${password}\0${share.password_hash}`);
        if (!passwordOk.has(key)) {
          guessing?.();
          if (!(await deps.passwords.verify(share.password_hash, password))) {
            throw new AppError("SHARE_PASSWORD_REQUIRED", "wrong password for this link");
          }
          passwordOk.add(key);
        }
      }
      db.update(shares).set({ last_accessed_at: nowIso() }).where(eq(shares.id, share.id)).run();
      return { share, actor, target };
    },

    /** A member of a folder share, by id: inside the shared folder, readable by the creator; else 404. */
    member(open: OpenShare, fileId: string): FileRow {
      this.assertBrowsable(open);
      const row = tree.live(open.actor, fileId);
      if (!deps.repo.isSelfOrAncestor(open.actor.organizationId, open.target.id, row.id)) {
        throw new AppError("FILE_NOT_FOUND", "file not found");
      }
      return row;
    },

    /**
     * A drop folder (`allow_upload`) takes files without showing any: its
     * contents, their downloads and its zip are 404 to the link's holders.
     */
    assertBrowsable(open: OpenShare): void {
      if (open.share.allow_upload && open.target.type === "directory") {
        throw new AppError("FILE_NOT_FOUND", "a drop folder's contents are not shown");
      }
    },

    /** One page (from 1) of the readable members of a folder share's folder (one level), and how many there are. */
    members(open: OpenShare, dirId: string, page = 1): { rows: FileRow[]; total: number; pageSize: number } {
      const dir = this.member(open, dirId);
      const { rows, total } = deps.repo.children(
        open.actor.organizationId,
        deps.access.view(open.actor),
        dir.id,
        {
          limit: MEMBERS_PAGE,
          offset: (page - 1) * MEMBERS_PAGE,
        },
      );
      return { rows, total, pageSize: MEMBERS_PAGE };
    },

    /**
     * The actor a drop folder's upload runs as: its creator, writing, if the
     * link takes uploads and the creator may still write files (their roles,
     * now) and write there (403 otherwise).
     */
    uploader(open: OpenShare): Actor {
      if (!open.share.allow_upload || open.target.type !== "directory") {
        throw new AppError("PERMISSION_DENIED", "this link does not take uploads");
      }
      if (!hasPermission(permissionsOf(deps.users.rolesOf(open.actor.userId)), "file:write")) {
        throw new AppError("PERMISSION_DENIED", "this link no longer takes uploads");
      }
      const writer: Actor = { ...open.actor, permissions: ["file:read", "file:write"] };
      deps.access.check(writer, open.target, LEVEL.write, "DIRECTORY_NOT_FOUND");
      tree.writable(open.target, "folder");
      return writer;
    },

    /**
     * Counts a download through the share, in one statement that also checks max_downloads, so
     * concurrent downloads past the limit (each opened before any was counted) are 410, not served.
     */
    claim(open: OpenShare): void {
      const { changes } = db
        .update(shares)
        .set({ download_count: sql`${shares.download_count} + 1` })
        .where(
          and(
            eq(shares.id, open.share.id),
            sql`(${shares.max_downloads} IS NULL OR ${shares.download_count} < ${shares.max_downloads})`,
          ),
        )
        .run();
      if (changes === 0) throw new AppError("GONE", "this link has reached its download limit");
    },
  };
}

export type SharesService = ReturnType<typeof createSharesService>;
