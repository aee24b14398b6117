import type { Config } from "./config/schema.ts";
import type { Db } from "./db/client.ts";
import type { GrantsService } from "./domain/access/grants.service.ts";
import type { AccountServices } from "./domain/accounts.ts";
import type { StreamTokens } from "./domain/auth/stream-tokens.ts";
import type { DavService } from "./domain/dav/dav.service.ts";
import type { DirectoriesService } from "./domain/files/directories.service.ts";
import type { FilesService } from "./domain/files/files.service.ts";
import type { TrashService } from "./domain/files/trash.service.ts";
import type { MediaService } from "./domain/playback/media.service.ts";
import type { PlaybackService } from "./domain/playback/playback.service.ts";
import type { StreamingService } from "./domain/playback/streaming.service.ts";
import type { ThumbnailService } from "./domain/playback/thumbnails.service.ts";
import type { SearchService } from "./domain/search/search.service.ts";
import type { SettingsService } from "./domain/settings/settings.service.ts";
import type { SharesService } from "./domain/shares/shares.service.ts";
import type { SuggestionsService } from "./domain/suggestions/suggestions.service.ts";
import type { TagsService } from "./domain/tags/tags.service.ts";
import type { WatchedService } from "./domain/watched/watched.service.ts";
import type { Logger } from "./log.ts";
import type { HealthRegistry } from "./platform/health.ts";
import type { Metrics } from "./platform/metrics.ts";

/**
 * The domain services, built once by the composition root (server.ts) and
 * shared by the REST and RPC adapters. Each area adds its service here.
 */
export interface Services extends AccountServices {
  files: FilesService;
  directories: DirectoriesService;
  trash: TrashService;
  grants: GrantsService;
  dav: DavService;
  shares: SharesService;
  search: SearchService;
  tags: TagsService;
  settings: SettingsService;
  watched: WatchedService;
  playback: PlaybackService;
  media: MediaService;
  thumbnails: ThumbnailService;
  streaming: StreamingService;
  suggestions: SuggestionsService;
  streamTokens: StreamTokens;
}

/** Everything a transport adapter needs; passed in, never a module singleton. */
export interface AppContext {
  cfg: Config;
  log: Logger;
  db: Db;
  metrics: Metrics;
  services: Services;
  version: string;
  /** Absolute data directory. */
  dataDir: string;
  /** Reports on optional tools and background work for /health details. */
  health: HealthRegistry;
}
