import type { ServiceImpl } from "@connectrpc/connect";
import type { AppContext } from "../context.ts";
import type { ShareDto } from "../domain/shares/shares.service.ts";
import type { ShareService } from "../gen/attic/v1/share_pb.ts";
import { actorOf } from "./call-context.ts";

const toProto = (s: ShareDto) => ({
  id: s.id,
  fileId: s.file_id,
  name: s.name,
  type: s.type,
  createdBy: s.created_by,
  ...(s.expires_at !== null ? { expiresAt: s.expires_at } : {}),
  hasPassword: s.has_password,
  ...(s.max_downloads !== null ? { maxDownloads: BigInt(s.max_downloads) } : {}),
  downloadCount: BigInt(s.download_count),
  allowUpload: s.allow_upload,
  createdAt: s.created_at,
  ...(s.last_accessed_at !== null ? { lastAccessedAt: s.last_accessed_at } : {}),
});

/** ShareService over the same shares service as /api/v1/shares. */
export function sharesRpc(ctx: AppContext): ServiceImpl<typeof ShareService> {
  const shares = () => ctx.services.shares;
  return {
    async createShare(req, call) {
      const made = await shares().create(actorOf(call), {
        ...(req.fileId !== undefined ? { file_id: req.fileId } : {}),
        ...(req.directoryId !== undefined ? { directory_id: req.directoryId } : {}),
        ...(req.expiresAt !== undefined ? { expires_at: req.expiresAt } : {}),
        ...(req.password !== undefined ? { password: req.password } : {}),
        ...(req.maxDownloads !== undefined ? { max_downloads: Number(req.maxDownloads) } : {}),
        ...(req.allowUpload ? { allow_upload: true } : {}),
      });
      return { share: toProto(made), token: made.token, url: made.url, downloadUrl: made.download_url };
    },
    listShares: (_req, call) => ({ shares: shares().list(actorOf(call)).shares.map(toProto) }),
    deleteShare: (req, call) => shares().remove(actorOf(call), req.id),
  };
}
