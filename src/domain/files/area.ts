import type { Db } from "../../db/client.ts";
import type { Logger } from "../../log.ts";
import { BlobStore } from "../../platform/blobstore.ts";
import type { Metrics } from "../../platform/metrics.ts";
import { createDirectoriesService } from "./directories.service.ts";
import { createFilesRepo } from "./files.repo.ts";
import { createFilesService } from "./files.service.ts";
import { createTrashService } from "./trash.service.ts";
import { createTree } from "./tree.ts";

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
}) {
  const blobs = new BlobStore(deps.dataDir);
  const swept = blobs.sweepTemp();
  if (swept > 0) deps.log.warn({ count: swept }, "removed temp files of interrupted uploads");
  const repo = createFilesRepo(deps.db);
  const tree = createTree(deps.db, repo);
  const common = { ...deps, repo, tree, blobs };
  return {
    blobs,
    files: createFilesService(common),
    directories: createDirectoriesService(common),
    trash: createTrashService(common),
  };
}
