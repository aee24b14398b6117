import { Code, ConnectError, type ServiceImpl } from "@connectrpc/connect";
import type { AppContext } from "../context.ts";
import { AppError } from "../errors.ts";
import type { FileService, UploadFileRequest } from "../gen/attic/v1/file_pb.ts";
import { filePieces } from "../platform/file-pump.ts";
import { actorOf } from "./call-context.ts";
import { filesPageToProto, fileToProto, pageFromProto } from "./convert.ts";

/** Bytes per DownloadFile chunk message: small enough for any client's message limit. */
const DOWNLOAD_CHUNK_BYTES = 64 * 1024;

/**
 * The chunks of an upload stream after its metadata message. Empty messages
 * are skipped; a second metadata message is a client error. Pulling one
 * message at a time is the backpressure: the next frame is not read before
 * the previous chunk is written. A call the client cancelled is never
 * stored, even when its last frame arrived whole: the signal is checked
 * once the stream has ended, before the upload commits.
 */
async function* chunksAfterMetadata(
  it: AsyncIterator<UploadFileRequest>,
  signal: AbortSignal,
): AsyncGenerator<Uint8Array> {
  for (;;) {
    const next = await it.next();
    if (next.done) {
      // Let a reset that raced the end of the stream land before deciding.
      await new Promise((resolve) => setImmediate(resolve));
      if (signal.aborted) throw new ConnectError("the client cancelled the upload", Code.Canceled);
      return;
    }
    const data = next.value.data;
    if (data.case === "chunk") {
      if (data.value.byteLength) yield data.value;
    } else if (data.case === "metadata") {
      throw new AppError("VALIDATION", "metadata may only be sent in the first message");
    }
  }
}

/** FileService over the same files service as /api/v1/files. */
export function filesRpc(ctx: AppContext): Partial<ServiceImpl<typeof FileService>> {
  const files = () => ctx.services.files;
  return {
    async uploadFile(requests, call) {
      const actor = actorOf(call);
      const it = requests[Symbol.asyncIterator]();
      const first = await it.next();
      if (first.done || first.value.data.case !== "metadata") {
        throw new AppError("VALIDATION", "the first message must carry the file metadata");
      }
      const meta = first.value.data.value;
      const file = await files().upload(actor, {
        name: meta.name,
        parentId: meta.parentId === undefined || meta.parentId === "" ? null : meta.parentId,
        source: chunksAfterMetadata(it, call.signal),
        ...(meta.expectedSha256 ? { expectedSha256: meta.expectedSha256 } : {}),
      });
      return { file: fileToProto(file) };
    },

    async *downloadFile(req, call) {
      const actor = actorOf(call);
      const file = files().get(actor, req.id);
      const content = await files().openContent(actor, req.id);
      files().countDownload("rpc");
      yield { data: { case: "metadata", value: fileToProto(file) } };
      if (content.size === 0) return;
      // Nothing is read beyond the piece ahead until the next message is pulled: backpressure end to end.
      // Each piece is serialized before the next is asked for, as filePieces requires.
      const opened = await content.open();
      for await (const piece of filePieces(opened, 0, content.size - 1, DOWNLOAD_CHUNK_BYTES)) {
        yield { data: { case: "chunk", value: piece } };
      }
    },

    getFile: (req, call) => ({ file: fileToProto(files().get(actorOf(call), req.id)) }),

    listFiles: (req, call) =>
      filesPageToProto(
        files().list(actorOf(call), {
          ...(req.parentId !== undefined ? { parent_id: req.parentId } : {}),
          ...pageFromProto(req),
        }),
      ),

    deleteFile: (req, call) => files().remove(actorOf(call), req.id, {}),

    moveFile: async (req, call) => ({
      file: fileToProto(await files().move(actorOf(call), req.id, { new_parent_id: req.newParentId })),
    }),

    copyFile: async (req, call) => ({
      file: fileToProto(
        await files().copy(actorOf(call), req.id, {
          destination_parent_id: req.destinationParentId,
          ...(req.newName !== undefined ? { new_name: req.newName } : {}),
        }),
      ),
    }),

    updateFile: async (req, call) => ({
      file: fileToProto(
        await files().update(actorOf(call), req.id, {
          ...(req.name !== undefined ? { name: req.name } : {}),
          ...(req.parentId !== undefined ? { parent_id: req.parentId } : {}),
        }),
      ),
    }),
  };
}
