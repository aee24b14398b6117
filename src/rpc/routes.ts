import type { ServerResponse } from "node:http";
import type { ConnectRouter } from "@connectrpc/connect";
import type { UniversalHandlerOptions } from "@connectrpc/connect/protocol";
import { connectNodeAdapter } from "@connectrpc/connect-node";
import type { AppContext } from "../context.ts";
import { DirectoryService } from "../gen/attic/v1/directory_pb.ts";
import { FileService } from "../gen/attic/v1/file_pb.ts";
import { FilesystemService } from "../gen/attic/v1/filesystem_pb.ts";
import { GrantService } from "../gen/attic/v1/grant_pb.ts";
import { GroupService } from "../gen/attic/v1/group_pb.ts";
import { PlaybackPositionService } from "../gen/attic/v1/playback_position_pb.ts";
import { SearchService } from "../gen/attic/v1/search_pb.ts";
import { SettingsService } from "../gen/attic/v1/settings_pb.ts";
import { ShareService } from "../gen/attic/v1/share_pb.ts";
import { WatchedFolderService } from "../gen/attic/v1/watched_folder_pb.ts";
import type { Handler } from "../platform/listener.ts";
import type { RateLimits } from "../platform/rate-limiter.ts";
import { rpcContextValues } from "./call-context.ts";
import { withRpcCors } from "./cors.ts";
import { decodeErrorsAsInvalidArgument } from "./decode-errors.ts";
import { directoriesRpc } from "./directories.rpc.ts";
import { rpcDownloadHotPath } from "./download-hot-path.ts";
import { filesRpc } from "./files.rpc.ts";
import { filesystemRpc } from "./filesystem.rpc.ts";
import { grantsRpc } from "./grants.rpc.ts";
import { groupsRpc } from "./groups.rpc.ts";
import { authInterceptor, observeInterceptor } from "./interceptors.ts";
import { playbackRpc } from "./playback.rpc.ts";
import { registerReflection } from "./reflection.rpc.ts";
import { searchRpc } from "./search.rpc.ts";
import { settingsRpc } from "./settings.rpc.ts";
import { sharesRpc } from "./shares.rpc.ts";
import { idsInterceptor } from "./validate-ids.ts";
import { watchedRpc } from "./watched.rpc.ts";

/** Every service Attic serves, for reflection. */
const SERVICES = [
  FileService,
  DirectoryService,
  SearchService,
  GroupService,
  WatchedFolderService,
  PlaybackPositionService,
  FilesystemService,
  SettingsService,
  GrantService,
  ShareService,
];

const KiB = 1024;
const MiB = 1024 * KiB;

/**
 * Message limits of every RPC. A message (one upload chunk, one request) is
 * at most 4 MiB plus framing; a compressed message is refused as soon as it
 * inflates past readMaxBytes, so a small gzip bomb cannot grow in memory.
 * Answers may be larger (a big tree), but are bounded too.
 */
const RPC_MESSAGE_LIMITS = {
  readMaxBytes: 4 * MiB + 64 * KiB,
  writeMaxBytes: 64 * MiB,
  compressMinBytes: 1 * KiB,
} as const;

/**
 * Options shared by every service: limits, JSON with the proto (snake_case)
 * field names like REST and with default values written out, and the
 * interceptors (metrics + error mapping outermost, then authentication and
 * the per-user rate limit).
 */
function serviceOptions(ctx: AppContext, limits: RateLimits): Partial<UniversalHandlerOptions> {
  return {
    ...RPC_MESSAGE_LIMITS,
    jsonOptions: { useProtoFieldName: true, alwaysEmitImplicit: true, ignoreUnknownFields: false },
    interceptors: [observeInterceptor(ctx), authInterceptor(ctx, limits), idsInterceptor()],
  };
}

/**
 * Registers every Connect service (Connect, gRPC and gRPC-Web) over the same
 * domain services as REST. `limits` are the REST limiters, so a user's
 * budget is shared by both APIs.
 */
export function rpcRoutes(ctx: AppContext, limits: RateLimits): (router: ConnectRouter) => void {
  const options = serviceOptions(ctx, limits);
  return (router) => {
    // File content is mostly compressed media already: gzipping every chunk would only burn CPU.
    const files = filesRpc(ctx) as Record<string, unknown>;
    for (const method of FileService.methods) {
      const uncompressed =
        method.name === "DownloadFile" ? { compressMinBytes: Number.MAX_SAFE_INTEGER } : {};
      router.rpc(method, files[method.localName] as never, { ...options, ...uncompressed });
    }
    router.service(DirectoryService, directoriesRpc(ctx), options);
    router.service(SearchService, searchRpc(ctx), options);
    router.service(GroupService, groupsRpc(ctx), options);
    router.service(WatchedFolderService, watchedRpc(ctx), options);
    router.service(PlaybackPositionService, playbackRpc(ctx), options);
    router.service(FilesystemService, filesystemRpc(ctx), options);
    router.service(SettingsService, settingsRpc(ctx), options);
    router.service(GrantService, grantsRpc(ctx), options);
    router.service(ShareService, sharesRpc(ctx), options);
    // Schema only, like /swagger/rpc: no credentials, still counted and error-mapped.
    registerReflection(router, SERVICES, { ...options, interceptors: [observeInterceptor(ctx)] });
    decodeErrorsAsInvalidArgument(router);
  };
}

/**
 * The Node handler of every RPC path (rpc/paths.ts): CORS for the
 * configured origins, DownloadFile's hot path, then the Connect adapter;
 * a path that names no method goes to `fallback` (the REST app), as Connect
 * does. server.ts builds it on the first such request.
 */
export function rpcHandler(ctx: AppContext, limits: RateLimits, fallback: Handler): Handler {
  const adapter = connectNodeAdapter({
    routes: rpcRoutes(ctx, limits),
    contextValues: rpcContextValues(ctx),
    fallback: fallback as never,
  }) as Handler;
  const hot = rpcDownloadHotPath(ctx, limits);
  return withRpcCors(ctx.cfg.server.cors_origins, (req, res) => {
    if (!hot(req, res as ServerResponse)) adapter(req, res);
  });
}
