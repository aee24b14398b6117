import type { Db } from "../../db/client.ts";
import type { Logger } from "../../log.ts";
import { BlobStore } from "../../platform/blobstore.ts";
import { SpaceReserve } from "../../platform/disk-space.ts";
import type { Metrics } from "../../platform/metrics.ts";
import { createAccessRepo } from "../access/access.repo.ts";
import { createAccess } from "../access/access.ts";
import { createGrantsService } from "../access/grants.service.ts";
import { reclaimUnused } from "./content.ts";
import { createDirectoriesService } from "./directories.service.ts";
import { createFilesRepo, type FilesRepo } from "./files.repo.ts";
import { createFilesService } from "./files.service.ts";
import { createSubtreeJobs } from "./subtree-jobs.ts";
import { createTrashService } from "./trash.service.ts";
import { createTree, type TreeLimits } from "./tree.ts";

/**
 * Builds the storage engine and the three services over it (files,
 * directories, trash). Removes temp files a crash left behind first: call
 * before the server accepts uploads.
 */
export function createFileServices(deps: {
  db: Db;
  dataDir: string;
  metrics: Metrics;
  log: Logger;
  maxUploadBytes: number;
  /** Bytes uploads leave free on the data directory's file system (0: none kept). */
  minFreeBytes: number;
  limits: TreeLimits;
}) {
  const blobs = new BlobStore(deps.dataDir);
  const swept = blobs.sweepTemp();
  if (swept > 0) deps.log.warn({ count: swept }, "removed temp files of interrupted uploads");
  const repo = createFilesRepo(deps.db);
  const accessRepo = createAccessRepo(deps.db);
  const access = createAccess(accessRepo);
  const reclaim = async (hashes: readonly string[]) => {
    for (const hash of hashes) await reclaimUnused(repo, blobs, deps.log, hash);
  };
  const dropList = (org: string, folderId: string) => {
    accessRepo.dropList(org, folderId);
    access.invalidate();
  };
  const jobs = createSubtreeJobs(deps.db, { reclaim, dropList });
  const unfinishedJobs = jobs.finishAllNow();
  if (unfinishedJobs.jobs > 0) {
    deps.log.warn(
      { jobs: unfinishedJobs.jobs },
      "finished the folder moves, deletes and grant changes a stop interrupted",
    );
  }
  const tree = createTree(deps.db, repo, deps.limits, access, jobs);
  const unfinished = repo.dropUnfinishedCopies();
  if (unfinished > 0)
    deps.log.warn({ rows: unfinished }, "removed the hidden rows of copies a stop interrupted");
  const reserve = new SpaceReserve(deps.dataDir, deps.minFreeBytes);
  const common = { ...deps, repo, tree, blobs, access, reserve };
  const sweeping = Promise.all([
    sweepOrphanBlobs(repo, blobs, deps.log),
    reclaim(unfinishedJobs.hashes),
  ]).catch((err) => deps.log.warn({ err }, "sweeping orphan blobs failed"));
  return {
    /** Waits for the background work started here (the orphan sweep) to end: server stop. */
    close: () => sweeping,
    blobs,
    reserve,
    repo,
    tree,
    access,
    accessRepo,
    files: createFilesService(common),
    directories: createDirectoriesService(common),
    trash: createTrashService(common),
    grants: createGrantsService({ repo, tree, access, accessRepo }),
  };
}

/**
 * Removes blobs no row references, left by a crash between a blob's rename
 * and its row's commit: only the blobs still marked pending (see
 * BlobStore.pendingDir), so start-up does not walk the whole store. Runs in
 * the background before uploads hold anything new of their own.
 */
async function sweepOrphanBlobs(repo: FilesRepo, blobs: BlobStore, log: Logger): Promise<void> {
  let removed = 0;
  try {
    for (const hash of await blobs.pending()) {
      if (!repo.blobInUse(hash)) {
        await reclaimUnused(repo, blobs, log, hash);
        removed++;
      }
      await blobs.forgetPending(hash);
    }
  } catch (err) {
    log.warn({ err }, "orphan blob sweep stopped");
  }
  if (removed > 0) log.warn({ count: removed }, "removed blobs no file referenced");
}
