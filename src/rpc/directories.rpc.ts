import type { ServiceImpl } from "@connectrpc/connect";
import type { AppContext } from "../context.ts";
import type { DirectoryService } from "../gen/attic/v1/directory_pb.ts";
import { actorOf } from "./call-context.ts";
import { directoryToProto, filesPageToProto, nodeToProto, pageFromProto } from "./convert.ts";

/** DirectoryService over the same directories service as /api/v1/directories. */
export function directoriesRpc(ctx: AppContext): Partial<ServiceImpl<typeof DirectoryService>> {
  const dirs = () => ctx.services.directories;
  return {
    createDirectory: (req, call) => ({
      directory: directoryToProto(
        dirs().create(actorOf(call), {
          name: req.name,
          ...(req.parentId !== undefined ? { parent_id: req.parentId } : {}),
        }),
      ),
    }),
    getDirectory: (req, call) => ({ directory: directoryToProto(dirs().get(actorOf(call), req.id)) }),
    listChildren: (req, call) => filesPageToProto(dirs().children(actorOf(call), req.id, pageFromProto(req))),
    getTree: async (req, call) => ({
      root: nodeToProto(await dirs().tree(actorOf(call), req.id, { depth: req.depth })),
    }),
    deleteDirectory: (req, call) => dirs().remove(actorOf(call), req.id, { recursive: req.recursive }),
  };
}
