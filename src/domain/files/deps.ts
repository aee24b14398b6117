import type { Db } from "../../db/client.ts";
import type { Logger } from "../../log.ts";
import type { BlobStore } from "../../platform/blobstore.ts";
import type { SpaceReserve } from "../../platform/disk-space.ts";
import type { Metrics } from "../../platform/metrics.ts";
import type { Access } from "../access/access.ts";
import type { FilesRepo } from "./files.repo.ts";
import type { Tree } from "./tree.ts";

/** What the file, upload and trash services are built from (area.ts assembles it). */
export interface FilesDeps {
  db: Db;
  repo: FilesRepo;
  tree: Tree;
  access: Access;
  blobs: BlobStore;
  metrics: Metrics;
  log: Logger;
  maxUploadBytes: number;
  /** The free space uploads leave on the data directory's file system (storage.min_free_bytes). */
  reserve: SpaceReserve;
}
