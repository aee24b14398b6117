import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from "prom-client";

/**
 * Every metric Attic exports, on a registry of its own (tests run many
 * servers in one process, so no global registry).
 */
export function createMetrics() {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, prefix: "attic_" });
  const r = [registry];
  return {
    registry,
    fileUploads: new Counter({
      name: "attic_file_uploads_total",
      help: "File uploads by outcome and media type",
      labelNames: ["status", "mime_type"] as const,
      registers: r,
    }),
    fileDownloads: new Counter({
      name: "attic_file_downloads_total",
      help: "File downloads and streams served",
      labelNames: ["kind"] as const,
      registers: r,
    }),
    fileDeletions: new Counter({
      name: "attic_file_deletions_total",
      help: "Files and directories deleted",
      registers: r,
    }),
    authAttempts: new Counter({
      name: "attic_auth_attempts_total",
      help: "Authentication attempts by method and outcome",
      labelNames: ["method", "status"] as const,
      registers: r,
    }),
    apiKeyUsage: new Counter({
      name: "attic_api_key_usage_total",
      help: "Requests authenticated by an API key",
      registers: r,
    }),
    dbQueryDuration: new Histogram({
      name: "attic_db_query_duration_seconds",
      help: "SQLite statement durations by operation",
      labelNames: ["operation"] as const,
      buckets: [0.00005, 0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.5, 1],
      registers: r,
    }),
    searchQueries: new Counter({
      name: "attic_search_queries_total",
      help: "Search queries answered",
      labelNames: ["transport"] as const,
      registers: r,
    }),
    activeUsers: new Gauge({
      name: "attic_active_users",
      help: "Distinct users seen in the last 15 minutes",
      registers: r,
    }),
    httpRequestDuration: new Histogram({
      name: "attic_http_request_duration_seconds",
      help: "HTTP request durations by method, route and status",
      labelNames: ["method", "route", "status"] as const,
      buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 10],
      registers: r,
    }),
    rpcRequests: new Counter({
      name: "attic_rpc_requests_total",
      help: "RPC calls by procedure and code",
      labelNames: ["procedure", "code"] as const,
      registers: r,
    }),
    rateLimited: new Counter({
      name: "attic_rate_limited_total",
      help: "Requests refused by a rate limit",
      labelNames: ["limiter"] as const,
      registers: r,
    }),
    mediaProbes: new Counter({
      name: "attic_media_probes_total",
      help: "ffprobe runs by result (ok, failed): one per file version, however many requests ask",
      labelNames: ["result"] as const,
      registers: r,
    }),
    watchedFilesIndexed: new Counter({
      name: "attic_watched_files_indexed_total",
      help: "Host files added to or updated in the index of watched folders",
      registers: r,
    }),
    watchedScanErrors: new Counter({
      name: "attic_watched_scan_errors_total",
      help: "Entries of watched folders that could not be read or indexed",
      registers: r,
    }),
    watchedScanRate: new Gauge({
      name: "attic_watched_scan_files_per_second",
      help: "Files examined per second by the running or last scan, per watched folder",
      labelNames: ["folder"] as const,
      registers: r,
    }),
    watchedFolders: new Gauge({
      name: "attic_watched_folders",
      help: "Watched folders by status (scanning, watching, polling, offline, error, idle)",
      labelNames: ["status"] as const,
      registers: r,
    }),
  };
}

export type Metrics = ReturnType<typeof createMetrics>;
