import type { ServiceImpl } from "@connectrpc/connect";
import type { AppContext } from "../context.ts";
import type { FilesystemService } from "../gen/attic/v1/filesystem_pb.ts";
import { actorOf } from "./call-context.ts";

/** FilesystemService over the same suggestions service as GET /api/v1/filesystem/path-suggestions. */
export function filesystemRpc(ctx: AppContext): Partial<ServiceImpl<typeof FilesystemService>> {
  return {
    // proto3 sends 0 for an unset limit: that means the default (10), as in REST.
    getPathSuggestions: (req, call) =>
      ctx.services.suggestions.suggest(actorOf(call), {
        prefix: req.prefix,
        ...(req.limit !== 0 ? { limit: req.limit } : {}),
      }),
  };
}
