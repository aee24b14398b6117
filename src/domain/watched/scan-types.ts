import type { FileFacts } from "../../platform/hostfs.ts";
import type { WriteOp } from "./scan-writes.ts";

/* The shapes shared by the scanner, its row writes (entries.ts) and move pairing (moves.ts). */

/** What a scan or a sync needs to know about the folder. */
export interface ScanTarget {
  folderId: string;
  organizationId: string;
  ownerId: string | null;
  /** Real path of the host root. */
  root: string;
  /** Local file system: stats run synchronously (cheap, never hang); remote ones go through the thread pool. */
  local: boolean;
  /** The tree's bounds (storage.max_path_length, storage.max_depth): deeper or longer entries are not indexed. */
  limits: { maxPathLength: number; maxDepth: number };
}

/** A directory to visit: its row and what the index last knew of it. */
export interface DirTask {
  rel: string;
  id: string;
  path: string;
  knownMtime: number | null;
  /** Its "device:inode" as last read (null: never read since migration 0025; undefined: not known here). */
  knownInode?: string | null;
  isNew: boolean;
  /** A new directory's parent row (where a folder moved here on the host is put: dir-moves.ts). */
  parentId?: string;
  /** Its acl_id: what new rows under it inherit (folder grants). */
  acl: string | null;
}

/** Counters a scan keeps up to date while it runs (read by the progress reporter). */
export interface ScanStats {
  filesSeen: number;
  /** Files added or updated. */
  indexed: number;
  /** Rows whose host entry vanished (with their subtrees). */
  removed: number;
  written: number;
  errors: number;
  dirsRead: number;
  dirsSkipped: number;
}

export interface ScanOptions {
  /** Read every directory and stat every file, even in directories whose mtime is unchanged. */
  full: boolean;
  /** Visit subdirectories: every one (a scan) or only new ones (a live-sync of changed directories). */
  recurse: "all" | "new";
  /** True for names never indexed (exclusions, dot-files). */
  excluded: (name: string) => boolean;
  signal?: AbortSignal;
  stats: ScanStats;
  /** Live sync only: pairs files that vanished from one directory with new ones elsewhere (moves keep their rows). */
  moves?: MovePool;
  /** Pairs directories that vanished with new ones of the same identity (dir-moves.ts); syncTree makes one. */
  dirMoves?: DirMovePool;
  /** Told of directories that appeared (to watch them) and disappeared (to stop). */
  onDir?: (event: "add" | "remove", rel: string) => void;
  /** True while requests are arriving: writes then take shorter turns (batch-writer.ts). */
  busy?: () => boolean;
}

export const newStats = (): ScanStats => ({
  filesSeen: 0,
  indexed: 0,
  removed: 0,
  written: 0,
  errors: 0,
  dirsRead: 0,
  dirsSkipped: 0,
});

/** Files gone from one synced directory and new in another, paired by size and mtime at the end of a sync. */
export interface MovePool {
  gone: Map<string, { id: string; rel: string }>;
  fresh: { task: DirTask; name: string; facts: FileFacts }[];
}

/**
 * Directories of one walk (a scan or a live sync) gone from where the index
 * had them, and rows a move in the walk took (dir-moves.ts): a gone one is
 * deleted at the end of the walk unless a move took it meanwhile.
 */
export interface DirMovePool {
  /** Host paths of directory rows whose entry vanished, by row id. */
  gone: Map<string, string>;
  /** Directory rows moved to a new place in this walk, with the host path they have now. */
  taken: Map<string, string>;
  /** The host paths those rows had: rows found gone below them went with them. */
  movedFrom: string[];
  /** Writes held until the gone directories are settled (the mtimes of their parents: see settleDirMoves). */
  later: WriteOp[];
  /**
   * Directories whose identity is not the one recorded (another directory
   * took the name): walked once this round is over, when any move that
   * takes their row has been found.
   */
  mismatched: DirTask[];
  /** Host paths whose row a move took while another directory holds them now: indexed afresh next round. */
  redo: string[];
  /** Rounds of the walk done (mismatched directories wait for the first to end). */
  round: number;
}
