import type { Db } from "../../db/client.ts";
import { AppError } from "../../errors.ts";
import { type Access, LEVEL } from "../access/access.ts";
import type { GrantsService } from "../access/grants.service.ts";
import { type Actor, requirePermission } from "../actor.ts";
import type { DirectoriesService } from "../files/directories.service.ts";
import type { FileRow, FilesRepo, ListingRow } from "../files/files.repo.ts";
import type { FilesService } from "../files/files.service.ts";
import type { Tree } from "../files/tree.ts";

/** A resource of the WebDAV tree: the top of the organization, or a row (a listing's columns at least). */
export type DavResource = { kind: "top" } | { kind: "row"; row: ListingRow };

/** A dead property: namespace, local name, and the client's XML for the whole element. */
export interface DeadProperty {
  ns: string;
  name: string;
  xml: string;
}

/** Most dead properties one resource may carry, and the size of one. */
export const MAX_DEAD_PROPS = 100;
export const MAX_DEAD_PROP_BYTES = 16 * 1024;
/** Members of a collection read (and sent) at a time. */
const MEMBER_PAGE = 500;

/** How the personal folder appears at the top of /dav/: "~username", like its path. */
export const homeSegment = (actor: Actor) => `~${actor.username}`;

/**
 * What WebDAV needs beyond the file services: resolving paths to rows
 * (through the same grants: an unreadable item is not found), listing, and
 * dead properties. Every change goes through the file, directory and
 * upload services, so rules, trash, quotas and read-only folders hold.
 */
export function createDavService(deps: {
  db: Db;
  repo: FilesRepo;
  tree: Tree;
  access: Access;
  files: FilesService;
  directories: DirectoriesService;
  grants: Pick<GrantsService, "ensureHome">;
  /** Free bytes where uploads go (quota-available-bytes). */
  freeBytes: () => number;
}) {
  const { repo, tree } = deps;
  const c = deps.db.$client;
  const propsOf = c.prepare<[string], DeadProperty & { file_id: string }>(
    "SELECT file_id, ns, name, xml FROM dav_properties WHERE file_id IN (SELECT value FROM json_each(?)) ORDER BY ns, name",
  );
  const setProp = c.prepare<[string, string, string, string]>(
    `INSERT INTO dav_properties (file_id, ns, name, xml) VALUES (?, ?, ?, ?)
     ON CONFLICT (file_id, ns, name) DO UPDATE SET xml = excluded.xml`,
  );
  const removeProp = c.prepare<[string, string, string]>(
    "DELETE FROM dav_properties WHERE file_id = ? AND ns = ? AND name = ?",
  );
  const countProps = c.prepare<[string], { n: number }>(
    "SELECT count(*) AS n FROM dav_properties WHERE file_id = ?",
  );
  const copyProps = c.prepare<[string, string]>(
    "INSERT OR REPLACE INTO dav_properties (file_id, ns, name, xml) SELECT ?, ns, name, xml FROM dav_properties WHERE file_id = ?",
  );

  /** The resource at `segments` (decoded names), or undefined when it does not exist for the actor. */
  function resolve(actor: Actor, segments: readonly string[]): DavResource | undefined {
    requirePermission(actor, "file:read");
    if (segments.length === 0) return { kind: "top" };
    let row: FileRow | undefined;
    for (const [i, name] of segments.entries()) {
      if (i === 0 && name === homeSegment(actor)) {
        row = repo.get(actor.organizationId, deps.grants.ensureHome(actor));
      } else {
        row = tree.child(actor, row?.id ?? null, name);
      }
      if (!row || (i < segments.length - 1 && row.type !== "directory")) return undefined;
    }
    return row ? { kind: "row", row } : undefined;
  }

  /**
   * The readable members of a collection, `size` at a time (the top's first
   * page leads with the caller's personal folder): a folder of 100k entries
   * is never held whole, and its listing can be sent as it is read.
   */
  function* memberPages(actor: Actor, res: DavResource, size = MEMBER_PAGE): Generator<ListingRow[]> {
    const parentId = res.kind === "top" ? null : res.row.id;
    const view = deps.access.view(actor);
    let after = 0;
    for (let first = true; ; first = false) {
      const page = repo.listingAfter(actor.organizationId, view, parentId, after, size);
      const more = page.rows.length === size;
      after = page.last;
      if (res.kind === "top") {
        // A shared item named like the personal folder cannot be reached by that name: not listed twice.
        page.rows = page.rows.filter((r) => r.name !== homeSegment(actor));
        const home = first ? repo.get(actor.organizationId, deps.grants.ensureHome(actor)) : undefined;
        if (home) page.rows.unshift(home);
      }
      if (page.rows.length > 0) yield page.rows;
      if (!more) return;
    }
  }

  /** The name a row has in /dav/ (a personal folder: "~username"). */
  const nameOf = (actor: Actor, row: ListingRow) =>
    row.home_of === actor.userId ? homeSegment(actor) : row.name;

  /** Checks that the actor may change the row's properties (write on it). */
  function writableRow(actor: Actor, row: ListingRow): void {
    deps.access.check(actor, row, LEVEL.write);
    tree.writable(row);
  }

  return {
    resolve,
    memberPages,
    nameOf,
    availableBytes: deps.freeBytes,

    /** The actor's level where a new member of `parent` would go. */
    canWriteIn(actor: Actor, parent: DavResource): boolean {
      if (parent.kind === "top") return deps.access.view(actor).top >= LEVEL.write;
      return deps.access.levelOf(actor, parent.row) >= LEVEL.write && !parent.row.watched_folder_id;
    },

    /** Whether the actor may move the row elsewhere (write on it; not a personal folder, not watched). */
    canMove(actor: Actor, row: ListingRow): boolean {
      return !row.home_of && !row.watched_folder_id && deps.access.levelOf(actor, row) >= LEVEL.write;
    },

    /**
     * Whether `row`'s subtree holds a folder with its own list that the actor
     * may not change (or not see): a depth-infinity lock on `row` would hold
     * up writes there, so it is refused (RFC 4918 9.10). A few dozen lists in
     * a household, each a walk up its ancestors.
     */
    reachesUnwritable(actor: Actor, row: ListingRow): boolean {
      const v = deps.access.view(actor);
      const roots = [...v.unreadable, ...[...v.levels].filter(([, l]) => l < LEVEL.write).map(([id]) => id)];
      return roots.some((root) => repo.isSelfOrAncestor(actor.organizationId, row.id, root));
    },

    /** Dead properties of many rows at once (one query for a whole listing). */
    deadProps(rows: readonly ListingRow[]): Map<string, DeadProperty[]> {
      const out = new Map<string, DeadProperty[]>();
      for (const { file_id, ...p } of propsOf.all(JSON.stringify(rows.map((r) => r.id)))) {
        const list = out.get(file_id);
        if (list) list.push(p);
        else out.set(file_id, [p]);
      }
      return out;
    },

    /**
     * Applies a PROPPATCH's sets and removes in order, all or nothing (one
     * transaction); answers per property whether it was done.
     */
    patchProps(
      actor: Actor,
      row: ListingRow,
      ops: readonly (({ op: "set" } & DeadProperty) | { op: "remove"; ns: string; name: string })[],
    ) {
      requirePermission(actor, "file:write");
      writableRow(actor, row);
      tree.tx(() => {
        for (const o of ops) {
          if (o.op === "set") {
            if (o.xml.length > MAX_DEAD_PROP_BYTES)
              throw new AppError("PAYLOAD_TOO_LARGE", "property value too large");
            setProp.run(row.id, o.ns, o.name, o.xml);
          } else removeProp.run(row.id, o.ns, o.name);
        }
        if ((countProps.get(row.id)?.n ?? 0) > MAX_DEAD_PROPS) {
          throw new AppError("LIMIT_REACHED", `at most ${MAX_DEAD_PROPS} properties per resource`);
        }
      });
    },

    /** Copies dead properties along with a copy or a replacing move. */
    copyProps: (fromId: string, toId: string) => copyProps.run(toId, fromId),

    /** Creates a collection. */
    mkcol(actor: Actor, parent: DavResource, name: string): FileRow {
      const dir = deps.directories.create(actor, {
        name,
        parent_id: parent.kind === "top" ? null : parent.row.id,
      });
      return repo.get(actor.organizationId, dir.file.id) as FileRow;
    },

    /** Deletes to the trash (a collection with its members). */
    async remove(actor: Actor, row: ListingRow): Promise<void> {
      await deps.files.remove(actor, row.id, { recursive: true });
    },
  };
}

export type DavService = ReturnType<typeof createDavService>;
