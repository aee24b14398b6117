/**
 * Downloads one file through FileService.DownloadFile (Connect protocol,
 * binary; HTTP/2 prior knowledge, or HTTP/1.1) and prints `<bytes> <seconds>`
 * on stdout. Run as a child pinned to the client CPU:
 * `node rpc-download.ts URL TOKEN ID [2|1.1]`.
 */
import { createClient } from "@connectrpc/connect";
import { createConnectTransport } from "@connectrpc/connect-node";
import { FileService } from "../../src/gen/attic/v1/file_pb.ts";

const [url, token, id, version = "2"] = process.argv.slice(2) as [string, string, string, string?];
// HTTP/2 with a 4 MiB receive window, as gRPC clients open theirs (Node's default of 64 KiB stalls every message).
const transport =
  version === "1.1"
    ? createConnectTransport({ baseUrl: url, httpVersion: "1.1", useBinaryFormat: true })
    : createConnectTransport({
        baseUrl: url,
        httpVersion: "2",
        useBinaryFormat: true,
        nodeOptions: { settings: { initialWindowSize: 4 << 20 } },
      });
const client = createClient(FileService, transport);
const start = performance.now();
let bytes = 0;
for await (const msg of client.downloadFile({ id }, { headers: { authorization: `Bearer ${token}` } })) {
  if (msg.data.case === "chunk") bytes += msg.data.value.byteLength;
}
process.stdout.write(`${bytes} ${(performance.now() - start) / 1000}\n`);
