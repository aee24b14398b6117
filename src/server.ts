import { mkdirSync } from "node:fs";
import { availableParallelism } from "node:os";
import { join, resolve } from "node:path";
import { getRequestListener } from "@hono/node-server";
import type { Config } from "./config/schema.ts";
import type { AppContext, Services } from "./context.ts";
import { openDb } from "./db/client.ts";
import { createAccountServices } from "./domain/accounts.ts";
import { createStreamTokens } from "./domain/auth/stream-tokens.ts";
import { createTokenSigner } from "./domain/auth/tokens.ts";
import { createDavService } from "./domain/dav/dav.service.ts";
import { createFileServices } from "./domain/files/area.ts";
import { createConversions } from "./domain/playback/conversions.ts";
import { createMediaService } from "./domain/playback/media.service.ts";
import { createPlaybackService } from "./domain/playback/playback.service.ts";
import { createStreamingService } from "./domain/playback/streaming.service.ts";
import { createThumbnailService } from "./domain/playback/thumbnails.service.ts";
import { createSearchService } from "./domain/search/search.service.ts";
import { createSettingsRepo } from "./domain/settings/settings.repo.ts";
import { createSettingsService } from "./domain/settings/settings.service.ts";
import { bootstrap } from "./domain/setup.ts";
import { createSharesService } from "./domain/shares/shares.service.ts";
import { createSuggestionsService } from "./domain/suggestions/suggestions.service.ts";
import { createTagsService } from "./domain/tags/tags.service.ts";
import { createWatchedService } from "./domain/watched/watched.service.ts";
import { createApp } from "./http/app.ts";
import { hotPaths } from "./http/hot-paths.ts";
import { createLogger, type Logger } from "./log.ts";
import { createActivity } from "./platform/activity.ts";
import { DiskCache } from "./platform/disk-cache.ts";
import { freeBytes } from "./platform/disk-space.ts";
import { createMediaTools, demuxerOf } from "./platform/ffmpeg.ts";
import { dataDirWritable, HealthRegistry, probeCheck } from "./platform/health.ts";
import { createHostPolicy } from "./platform/host-policy.ts";
import { loadSigningKeys } from "./platform/keys.ts";
import { lazyHandler } from "./platform/lazy.ts";
import { type Handler, type Listener, listen } from "./platform/listener.ts";
import { createMetrics } from "./platform/metrics.ts";
import { createPasswordHasher } from "./platform/passwords.ts";
import { createRateLimits } from "./platform/rate-limiter.ts";
import { nativeAddons } from "./platform/sea.ts";
import { withSecurityHeaders } from "./platform/security-headers.ts";
import { createWorkDir } from "./platform/work-dir.ts";
import { isRpcPath } from "./rpc/paths.ts";
import { VERSION } from "./version.ts";

/** How long after listening the media tools are detected, unless a media request asked first. */
const MEDIA_DETECT_DELAY_MS = 200;
/**
 * Search threads (domain/search/search-threads.ts): each one's page cache
 * (the server's connection keeps 32 MiB; two threads at most), how long an
 * idle one lives, how many searches one user may have running or waiting,
 * and how many may wait in all. At 16 instead of 32 MiB each, peak RSS over
 * `scripts/bench/search-rest.ts` (380 shapes, a scanned 1M-file library)
 * fell 323 -> 306 MiB, latency the same (p50 / p95 / p99 11.3 / 58.9 / 90.3
 * -> 11.7 / 57.3 / 86.5 ms): the pages they miss come from the OS's cache.
 */
const SEARCH_CACHE_KIB = 16 * 1024;
const SEARCH_THREAD_IDLE_MS = 5 * 60_000;
const SEARCHES_PER_CALLER = 4;
const SEARCHES_WAITING = 64;

export interface AtticServer {
  ctx: AppContext;
  /** The Node request handler serving REST and RPC. */
  handler: Handler;
  /** Starts listening; resolves with the bound address. */
  listen(): Promise<{ host: string; port: number; url: string }>;
  /** Stops accepting, finishes in-flight requests (server.shutdown_timeout), closes the database. */
  close(): Promise<void>;
}

/**
 * The composition root: database, services, REST app and RPC router on one
 * handler. Only `listen()` opens a port, so tests build many servers on port 0.
 */
export async function buildServer(cfg: Config, opts: { log?: Logger } = {}): Promise<AtticServer> {
  const log = opts.log ?? createLogger(cfg.log.level);
  const dataDir = resolve(cfg.storage.data_dir);
  mkdirSync(dataDir, { recursive: true, mode: 0o750 });

  const metrics = createMetrics();
  const activity = createActivity();
  const db = openDb({
    file: join(dataDir, "attic.db"),
    log,
    onQuery: (operation, seconds) => metrics.dbQueryDuration.observe({ operation }, seconds),
    nativeBinding: nativeAddons()?.betterSqlite3,
  });
  const passwords = createPasswordHasher({
    memoryKib: cfg.auth.password_hash_memory_kib,
    iterations: cfg.auth.password_hash_iterations,
  });
  const keys = await loadSigningKeys({
    privateKeyFile: cfg.auth.private_key_file,
    publicKeyFile: cfg.auth.public_key_file,
    dataDir,
  });
  if (keys.generated) log.info({ dir: join(dataDir, "keys") }, "generated a new RS256 signing key pair");
  const tokens = createTokenSigner(keys, {
    access: cfg.auth.access_token_ttl,
    refresh: cfg.auth.refresh_token_ttl,
  });
  const mediaTools = createMediaTools(cfg.media, log);
  const hostPolicy = createHostPolicy({ dataDir, allowedRoots: cfg.watch.allowed_roots });
  const storage = createFileServices({
    db,
    dataDir,
    metrics,
    log,
    maxUploadBytes: cfg.storage.max_upload_bytes,
    minFreeBytes: cfg.storage.min_free_bytes,
    limits: {
      maxCopyItems: cfg.storage.max_copy_items,
      maxPathLength: cfg.storage.max_path_length,
      maxDepth: cfg.storage.max_depth,
    },
  });
  const accounts = createAccountServices({
    db,
    cfg,
    tokens,
    passwords,
    metrics,
    ensureHome: storage.grants.ensureHome,
  });
  const media = createMediaService({ openPlayable: storage.files.openPlayable, tools: mediaTools, metrics });
  const conversions = createConversions({
    work: createWorkDir(join(dataDir, "transcodes")),
    spawn: mediaTools.spawnFfmpeg,
    demuxerOf,
    maxRunning: cfg.media.max_transcodes,
    idleMs: cfg.media.transcode_idle_seconds * 1000,
    maxBytes: cfg.media.transcode_cache_max_bytes,
    hwaccel: cfg.media.hwaccel,
    log,
  });
  const streamTokens = createStreamTokens({
    files: storage.tree,
    users: accounts.usersRepo,
    keys,
    apiKeyReads: accounts.auth.apiKeyReads,
  });
  const services: Services = {
    files: storage.files,
    directories: storage.directories,
    trash: storage.trash,
    grants: storage.grants,
    ...accounts,
    search: createSearchService({
      db,
      metrics,
      access: storage.access,
      threads: {
        file: db.$client.name,
        threads: availableParallelism() >= 2 ? 2 : 1,
        cacheKib: SEARCH_CACHE_KIB,
        idleMs: SEARCH_THREAD_IDLE_MS,
        perCaller: SEARCHES_PER_CALLER,
        maxWaiting: SEARCHES_WAITING,
        onFailure: (err) => log.error({ err }, "search threads failed; searches run on the server's thread"),
      },
    }),
    tags: createTagsService({ db, access: storage.access }),
    settings: createSettingsService({ repo: createSettingsRepo(db) }),
    watched: createWatchedService({
      db,
      cfg: cfg.watch,
      log,
      metrics,
      hostPolicy,
      limits: { maxPathLength: cfg.storage.max_path_length, maxDepth: cfg.storage.max_depth },
      access: storage.access,
      grants: storage.grants,
      tree: storage.tree,
      busy: () => activity.busy(),
    }),
    playback: createPlaybackService({ db, access: storage.access }),
    media,
    streaming: createStreamingService({
      db,
      access: storage.access,
      openPlayable: storage.files.openPlayable,
      openContent: storage.files.openContent,
      media,
      tools: mediaTools,
      conversions,
      subtitleCache: new DiskCache(join(dataDir, "subtitles"), 256 * 1024 * 1024, ".vtt"),
      issueToken: streamTokens.issue,
    }),
    thumbnails: createThumbnailService({
      openContent: storage.files.openContent,
      tools: mediaTools,
      dataDir,
      cacheMaxBytes: cfg.media.thumbnail_cache_max_bytes,
      timeoutSeconds: cfg.media.thumbnail_timeout_seconds,
    }),
    suggestions: createSuggestionsService({ hostPolicy }),
    dav: createDavService({
      db,
      repo: storage.repo,
      tree: storage.tree,
      access: storage.access,
      files: storage.files,
      directories: storage.directories,
      grants: storage.grants,
      freeBytes: freeBytes(dataDir),
    }),
    shares: createSharesService({
      db,
      repo: storage.repo,
      tree: storage.tree,
      access: storage.access,
      users: accounts.usersRepo,
      passwords,
    }),
    streamTokens,
  };
  const ctx: AppContext = {
    cfg,
    log,
    db,
    metrics,
    services,
    version: VERSION,
    dataDir,
    health: new HealthRegistry(log),
  };
  await bootstrap(db, cfg, passwords, log);

  // One set of limiters for REST and RPC: a user has one budget.
  const limits = createRateLimits(cfg.rate_limit);
  const app = createApp(ctx, limits);
  const rest = getRequestListener(app.fetch, { overrideGlobalObjects: false }) as Handler;
  // The RPC stack (Connect, protobuf descriptors, every RPC service) is built on the first RPC
  // request, not at start: ~30 ms of module evaluation that REST, the UI and /health never need.
  const rpc = lazyHandler(
    async () => (await import("./rpc/routes.ts")).rpcHandler(ctx, limits, rest),
    log,
    "the RPC services",
  );
  const hot = hotPaths(ctx, limits);
  // The hot paths write the security headers with the rest of their head (securedHead).
  const rpcSecured = withSecurityHeaders<Handler>(rpc);
  const restSecured = withSecurityHeaders<Handler>(rest);
  const handler: Handler = (req, res) => {
    activity.note();
    if (isRpcPath(req.url)) rpcSecured(req, res);
    else if (!hot(req, res)) restSecured(req, res);
  };

  let listener: Listener | undefined;
  const ping = db.$client.prepare("SELECT 1");
  ctx.health.register(
    "database",
    probeCheck(() => ping.get()),
    "the database does not answer",
  );
  const writable = dataDirWritable(dataDir);
  ctx.health.register(
    "storage",
    () => {
      writable();
      // Degraded, not unhealthy: reads, streams and the database go on; only new content is refused.
      if (!storage.reserve.allows(0))
        return {
          status: "degraded",
          message: "free space is below storage.min_free_bytes: uploads are refused",
        };
      return { status: "ok" };
    },
    "data directory is not writable",
  );
  ctx.health.register("watched_folders", () => services.watched.health());
  ctx.health.register("media", () => mediaTools.health());
  services.files.setHostContentResolver((row) => services.watched.resolveHostFile(row));
  services.watched.start();
  // Deleting an organization first unmounts its watched folders, stopping their watchers, then purges
  // its files a folder at a time, reclaiming their blobs (a cascade would leave them on disk).
  services.orgs.onDelete(async (orgActor) => {
    for (const f of services.watched.list(orgActor).folders) await services.watched.remove(orgActor, f.id);
    await storage.tree.purgeAll(orgActor.organizationId);
  });
  let detectMedia: NodeJS.Timeout | undefined;
  return {
    ctx,
    handler,
    async listen() {
      listener = await listen(handler, {
        host: cfg.server.host,
        port: cfg.server.port,
        maxHeaderBytes: cfg.server.max_header_bytes,
        headersTimeoutMs: cfg.server.headers_timeout * 1000,
        idleTimeoutMs: cfg.server.idle_timeout * 1000,
        tls:
          cfg.server.tls_cert && cfg.server.tls_key
            ? { cert: cfg.server.tls_cert, key: cfg.server.tls_key }
            : undefined,
      });
      // ffmpeg is looked for once the server answers (or by the first media request), not
      // during start-up: /health says "checking for ffmpeg" until then.
      detectMedia = setTimeout(() => void mediaTools.ready(), MEDIA_DETECT_DELAY_MS).unref();
      const scheme = cfg.server.tls_cert ? "https" : "http";
      return {
        host: listener.host,
        port: listener.port,
        url: `${scheme}://${listener.host}:${listener.port}`,
      };
    },
    async close() {
      clearTimeout(detectMedia);
      await listener?.close(cfg.server.shutdown_timeout * 1000);
      await services.watched.close();
      await services.search.close();
      await conversions.close();
      await storage.close();
      db.$client.close();
    },
  };
}
