import { Worker } from "node:worker_threads";
import { readAsset } from "../platform/assets.ts";
import { inSea, nativeAddonFile } from "../platform/sea.ts";
import type { DbWorkerData } from "./worker-db.ts";

/**
 * Starts a database thread (worker-db.ts): inside the single executable
 * from the bundle embedded as `asset` (a SEA cannot start a worker from a
 * file it carries; scripts/build.ts embeds it), from a checkout from the
 * source file `source`. It is unref'd: never what keeps the process alive.
 */
export function startDbThread<T extends object>(
  asset: string,
  source: URL,
  data: T & { file: string },
): Worker {
  const workerData: T & DbWorkerData = { ...data, addonPath: nativeAddonFile("better-sqlite3") };
  let worker: Worker;
  if (inSea()) {
    const code = readAsset(asset);
    if (!code) throw new Error(`${asset} is not embedded in this executable`);
    worker = new Worker(code.toString("utf8"), { eval: true, workerData });
  } else {
    worker = new Worker(source, { workerData });
  }
  worker.unref();
  return worker;
}
