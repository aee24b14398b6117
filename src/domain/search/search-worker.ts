/**
 * A search thread (search-threads.ts starts it): a read-only connection of
 * its own to the server's database that answers search pages, so that a
 * search reading hundreds of thousands of rows (a single letter sorted by
 * date in a library of a million files takes seconds) holds this thread,
 * not the server's event loop and every other request with it.
 *
 * It answers what search.repo.ts `page` answers (ids, total, plan); the
 * main thread reads the page's rows itself. SQLite lets any number of
 * readers work beside the server's writer on a WAL database, each seeing
 * the last commit when its read transaction starts (here: one a page).
 *
 * The build bundles it on its own (scripts/build.ts); from a checkout Node
 * runs this file as is.
 */
import { parentPort, workerData } from "node:worker_threads";
import { CONNECTION_PRAGMAS, type DbWorkerData, openWorkerDb } from "../../db/worker-db.ts";
import { createSearchRepo, type Scope, type SearchPage, type SearchPlanOptions } from "./search.repo.ts";
import type { SearchSpec } from "./search.schemas.ts";

/** What the main thread passes: the database, the plan's options and this connection's page cache. */
export interface SearchWorkerData extends DbWorkerData {
  plan: SearchPlanOptions;
  cacheKib: number;
}

/** One page to answer (search.repo.ts `page`), numbered. */
export interface SearchWorkerRequest {
  seq: number;
  organizationId: string;
  spec: SearchSpec;
  limit: number;
  offset: number;
  scope?: Scope;
}

export type SearchWorkerReply = { seq: number; page: SearchPage } | { seq: number; error: string };

const data = workerData as SearchWorkerData;
const port = parentPort;
if (!port) throw new Error("search-worker.ts runs as a worker thread");

const sqlite = openWorkerDb(data);
for (const pragma of CONNECTION_PRAGMAS) sqlite.pragma(pragma);
sqlite.pragma(`cache_size = -${data.cacheKib}`);
// A search sorting most of a large library (a single letter by date) sorts and counts its ~1M
// matches in temporary storage: in memory (the server connection's setting) that grew the process
// by 120-135 MiB per such search at 1M rows; in a file (unlinked, SQLite's temporary directory) by
// ~75, in about the same time.
sqlite.pragma("temp_store = FILE");
// Searches only read: a bug that tried to write here fails instead of taking the write lock.
sqlite.pragma("query_only = ON");
const repo = createSearchRepo({ $client: sqlite }, data.plan);
// One read transaction a page: every statement of a plan (a count, then the page; a folder's span
// or directories kept from an earlier search, checked against the database's version first) sees
// the same commit, so a page and its total agree even when a write lands between them.
const pageOf = sqlite.transaction((request: SearchWorkerRequest) =>
  repo.page(request.organizationId, request.spec, request.limit, request.offset, request.scope),
);

port.on("message", (message: SearchWorkerRequest | "close") => {
  if (message === "close") {
    sqlite.close();
    port.close();
    return;
  }
  const { seq } = message;
  let reply: SearchWorkerReply;
  try {
    reply = { seq, page: pageOf(message) };
  } catch (err) {
    reply = { seq, error: err instanceof Error ? err.message : String(err) };
  }
  port.postMessage(reply);
});
