import type { ServiceImpl } from "@connectrpc/connect";
import type { AppContext } from "../context.ts";
import type { WatchedFolderService } from "../gen/attic/v1/watched_folder_pb.ts";
import { actorOf } from "./call-context.ts";
import { filesPageToProto, pageFromProto, watchedFolderToProto } from "./convert.ts";

/** WatchedFolderService over the same watched-folders service as /api/v1/watched-folders. */
export function watchedRpc(ctx: AppContext): Partial<ServiceImpl<typeof WatchedFolderService>> {
  const watched = () => ctx.services.watched;
  return {
    createWatchedFolder: async (req, call) => ({
      watchedFolder: watchedFolderToProto(
        await watched().create(actorOf(call), {
          // Unset in proto3 arrives as "": let the service name it after the host folder, as over REST.
          ...(req.name ? { name: req.name } : {}),
          path: req.path,
          ...(req.parentId ? { parent_id: req.parentId } : {}),
        }),
      ),
    }),
    getWatchedFolder: (req, call) => ({
      watchedFolder: watchedFolderToProto(watched().get(actorOf(call), req.id)),
    }),
    listWatchedFolders: (_req, call) => ({
      watchedFolders: watched().list(actorOf(call)).folders.map(watchedFolderToProto),
    }),
    updateWatchedFolder: async (req, call) => ({
      watchedFolder: watchedFolderToProto(
        await watched().update(actorOf(call), req.id, {
          ...(req.name !== undefined ? { name: req.name } : {}),
          ...(req.path !== undefined ? { path: req.path } : {}),
        }),
      ),
    }),
    deleteWatchedFolder: async (req, call) => {
      await watched().remove(actorOf(call), req.id);
      return { success: true };
    },
    scanWatchedFolder: (req, call) => ({
      watchedFolder: watchedFolderToProto(watched().scan(actorOf(call), req.id, { full: req.full })),
    }),
    listWatchedFolderFiles: async (req, call) =>
      filesPageToProto(await watched().listFiles(actorOf(call), req.id, pageFromProto(req))),
  };
}
