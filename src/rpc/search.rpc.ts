import type { ServiceImpl } from "@connectrpc/connect";
import type { AppContext } from "../context.ts";
import type { SearchService } from "../gen/attic/v1/search_pb.ts";
import { actorOf } from "./call-context.ts";
import { fileToProto, searchQueryFromProto, searchResultToProto } from "./convert.ts";

/** SearchService over the same search service as GET /api/v1/search. */
export function searchRpc(ctx: AppContext): Partial<ServiceImpl<typeof SearchService>> {
  const search = () => ctx.services.search;
  return {
    search: async (req, call) => ({
      result: searchResultToProto(
        await search().search(actorOf(call), searchQueryFromProto(req.query), "rpc", call.signal),
      ),
    }),
    async *searchStream(req, call) {
      // Validation and the permission check happen here, before the first message.
      const files = search().stream(actorOf(call), searchQueryFromProto(req.query), "rpc", call.signal);
      for await (const file of files) {
        if (call.signal.aborted) return;
        yield { file: fileToProto(file) };
      }
    },
  };
}
