import { spawn } from "node:child_process";
import { writeFileSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { create, toBinary } from "@bufbuild/protobuf";
import { DownloadFileRequestSchema } from "../../src/gen/attic/v1/file_pb.ts";
import { REF_TOKEN } from "./hono-ref.ts";
import { type AtticProcess, startAttic, uploadWithCurl, WORK } from "./lib/attic.ts";
import { bigFile, GiB, largestFile, warm } from "./lib/data.ts";
import { startNginx } from "./lib/nginx.ts";
import { CLI_CPU, freePort, pinned, run, SRV_CPU, stopChild, waitPort } from "./lib/proc.ts";
import { type Figure, figure, say } from "./lib/report.ts";
import { median } from "./lib/stats.ts";
import { wrk } from "./lib/wrk.ts";

const RUNS = Number(process.env.DL_RUNS ?? 3);
const WRK_RUNS = Number(process.env.WRK_RUNS ?? 3);
const WRK_D = Number(process.env.WRK_D ?? 4);
const WRK_C = Number(process.env.WRK_C ?? 16);

/** One full GET with curl to /dev/null; returns MiB/s after checking status and size. */
async function curlGet(url: string, headers: string[], expectBytes: number): Promise<number> {
  const h = headers.flatMap((x) => ["-H", x]);
  const r = await run(
    "curl",
    ["-sS", "-o", "/dev/null", ...h, "-w", "%{http_code} %{size_download} %{speed_download}", url],
    { cpu: CLI_CPU, timeoutMs: 120_000 },
  );
  const [code, size, speed] = r.stdout.trim().split(" ");
  if (code !== "200" || Number(size) !== expectBytes) {
    throw new Error(`GET ${url} answered ${code} with ${size} bytes (expected ${expectBytes})`);
  }
  return Number(speed) / 1048576;
}

/** How curl speaks each RPC protocol: content type and HTTP version (gRPC needs HTTP/2, here without TLS). */
const RPC_WIRES = {
  "Connect binary over HTTP/1.1": { type: "application/connect+proto", http: "--http1.1" },
  "gRPC over HTTP/2": { type: "application/grpc", http: "--http2-prior-knowledge" },
  "gRPC-Web binary over HTTP/1.1": { type: "application/grpc-web+proto", http: "--http1.1" },
} as const;
type RpcWire = keyof typeof RPC_WIRES;

/**
 * One DownloadFile over an RPC protocol (binary) read by curl, the client of
 * the REST figure: the server's RPC throughput without a slower client in
 * the way. MiB/s of file bytes, after checking the status and that the
 * stream is at least the file's size.
 */
async function rpcCurl(a: AtticProcess, id: string, wire: RpcWire): Promise<number> {
  const msg = toBinary(DownloadFileRequestSchema, create(DownloadFileRequestSchema, { id }));
  const body = Buffer.alloc(5 + msg.length);
  body.writeUInt32BE(msg.length, 1);
  body.set(msg, 5);
  const file = join(WORK, "rpc-download-request.bin");
  writeFileSync(file, body);
  const r = await run(
    "curl",
    [
      "-sS",
      RPC_WIRES[wire].http,
      "-o",
      "/dev/null",
      "-H",
      `content-type: ${RPC_WIRES[wire].type}`,
      "-H",
      `authorization: Bearer ${a.token}`,
      "--data-binary",
      `@${file}`,
      "-w",
      "%{http_code} %{size_download} %{time_total}",
      `${a.url}/attic.v1.FileService/DownloadFile`,
    ],
    { cpu: CLI_CPU, timeoutMs: 300_000 },
  );
  const [code, size, seconds] = r.stdout.trim().split(" ").map(Number);
  if (code !== 200 || (size as number) < GiB)
    throw new Error(`RPC download (${wire}) by curl: ${code}, ${size} bytes`);
  return GiB / 1048576 / (seconds as number);
}

/** One DownloadFile through scripts/bench/rpc-download.ts pinned to the client CPU; MiB/s after checking the size. */
async function rpcGet(a: AtticProcess, id: string, httpVersion: "2" | "1.1"): Promise<number> {
  const script = join(import.meta.dirname, "rpc-download.ts");
  const r = await run(process.execPath, [script, a.url, a.token, id, httpVersion], {
    cpu: CLI_CPU,
    timeoutMs: 300_000,
  });
  const [bytes, seconds] = r.stdout.trim().split(" ").map(Number);
  if (bytes !== GiB) throw new Error(`RPC download gave ${bytes} bytes: ${r.stderr}`);
  return GiB / 1048576 / (seconds as number);
}

/** The Attic URL that answers a Range request with 206 (download first, then stream), if any. */
async function rangeUrl(a: AtticProcess, id: string): Promise<string | undefined> {
  for (const kind of ["download", "stream"]) {
    const url = `${a.url}/api/v1/files/${id}/${kind}`;
    const res = await fetch(url, {
      headers: { authorization: `Bearer ${a.token}`, range: "bytes=1000-1049575" },
    });
    const body = await res.arrayBuffer();
    if (res.status === 206 && body.byteLength === 1048576) return url;
  }
  return undefined;
}

/**
 * Download of a 1 GiB file and random 64 KiB / 1 MiB ranges: Attic against
 * nginx (1 worker, sendfile) serving Attic's own blob of the same upload,
 * and against the bare Node server of node-ref.ts on the same blob (Node
 * has no sendfile: it shows what reading into memory and writing to the
 * socket allows).
 */
export async function downloadBench(): Promise<Figure[]> {
  const src = await bigFile();
  const a = await startAttic();
  try {
    const { file } = await uploadWithCurl(a, src, "bench-1g.mp4");
    const blob = largestFile(join(a.dataDir, "blobs")) ?? largestFile(a.dataDir);
    if (!blob || blob.size !== GiB) throw new Error("cannot find the uploaded blob under the data dir");
    const ngx = await startNginx(dirname(blob.path));
    const port = await freePort();
    const [cmd, args] = pinned(SRV_CPU, process.execPath, [join(import.meta.dirname, "node-ref.ts")]);
    const nodeRef = spawn(cmd, args, {
      env: { ...process.env, PORT: String(port), ROOT: dirname(blob.path) },
      stdio: "inherit",
    });
    try {
      await warm(blob.path);
      await waitPort(port);
      const auth = `Bearer ${a.token}`;
      const atticUrl = `${a.url}/api/v1/files/${file.id}/download`;
      const ngxUrl = `${ngx.url}/${basename(blob.path)}`;
      const nodeUrl = `http://127.0.0.1:${port}/${basename(blob.path)}`;
      const nodeAuth = `Bearer ${REF_TOKEN}`;
      const full = { attic: [] as number[], ref: [] as number[], node: [] as number[] };
      for (let i = 0; i < RUNS; i++) {
        full.attic.push(await curlGet(atticUrl, [`Authorization: ${auth}`], GiB));
        full.ref.push(await curlGet(ngxUrl, [], GiB));
        full.node.push(await curlGet(nodeUrl, [`Authorization: ${nodeAuth}`], GiB));
      }
      const label = "curl GET 1 GiB (warm, 1 conn)";
      const figures = [
        mk(label, "MiB/s", full.attic, full.ref, a, `median of ${RUNS}`),
        mk(label, "MiB/s", full.attic, full.node, a, `median of ${RUNS}`, BARE_NODE),
      ];
      // RPC against REST on the same server and file: FileService.DownloadFile in each protocol,
      // read by curl (the same client as REST), and Connect by a Node Connect client.
      const rpc = {
        curl: [] as number[],
        grpc: [] as number[],
        grpcWeb: [] as number[],
        h2: [] as number[],
        h1: [] as number[],
        rest: [] as number[],
      };
      for (let i = 0; i < RUNS; i++) {
        rpc.curl.push(await rpcCurl(a, file.id, "Connect binary over HTTP/1.1"));
        rpc.grpc.push(await rpcCurl(a, file.id, "gRPC over HTTP/2"));
        rpc.grpcWeb.push(await rpcCurl(a, file.id, "gRPC-Web binary over HTTP/1.1"));
        rpc.h2.push(await rpcGet(a, file.id, "2"));
        rpc.h1.push(await rpcGet(a, file.id, "1.1"));
        rpc.rest.push(await curlGet(atticUrl, [`Authorization: ${auth}`], GiB));
      }
      for (const [label, samples] of [
        ["Connect binary over HTTP/1.1, read by curl", rpc.curl],
        ["gRPC over HTTP/2, read by curl", rpc.grpc],
        ["gRPC-Web binary over HTTP/1.1, read by curl", rpc.grpcWeb],
        ["Connect binary over HTTP/2, Node Connect client", rpc.h2],
        ["Connect binary over HTTP/1.1, Node Connect client", rpc.h1],
      ] as const) {
        figures.push(
          figure({
            benchmark: "download",
            metric: `RPC DownloadFile 1 GiB, ${label}`,
            unit: "MiB/s",
            attic: median(samples),
            reference: median(rpc.rest),
            referenceName: "REST download, same server (curl)",
            higherIsBetter: true,
            atticPeakRssMiB: a.peakRssMiB(),
            atticSamples: samples,
            referenceSamples: rpc.rest,
            note: `median of ${RUNS}`,
          }),
        );
      }
      const ranged = await rangeUrl(a, file.id);
      if (!ranged) {
        say("download: no Attic endpoint answers Range with 206 yet; range figures skipped");
        return figures;
      }
      for (const length of [65536, 1048576]) {
        const r = { attic: [] as number[], ref: [] as number[], node: [] as number[] };
        for (let i = 0; i < WRK_RUNS; i++) {
          const range = { fileSize: GiB, length, seed: i + 1 };
          const x = await wrk({
            url: ranged,
            connections: WRK_C,
            seconds: WRK_D,
            authorization: auth,
            range,
          });
          const y = await wrk({ url: ngxUrl, connections: WRK_C, seconds: WRK_D, range });
          const z = await wrk({
            url: nodeUrl,
            connections: WRK_C,
            seconds: WRK_D,
            authorization: nodeAuth,
            range,
          });
          if (x.non2xx || y.non2xx || z.non2xx)
            say(`download: non-2xx responses attic=${x.non2xx} nginx=${y.non2xx} bare Node=${z.non2xx}`);
          r.attic.push(x.rps);
          r.ref.push(y.rps);
          r.node.push(z.rps);
        }
        const label = `wrk random ${length === 65536 ? "64 KiB" : "1 MiB"} ranges c${WRK_C}`;
        const note = `${basename(ranged)}, ${WRK_RUNS}x${WRK_D}s`;
        figures.push(mk(label, "req/s", r.attic, r.ref, a, note));
        figures.push(mk(label, "req/s", r.attic, r.node, a, note, BARE_NODE));
      }
      return figures;
    } finally {
      await ngx.stop();
      await stopChild(nodeRef);
    }
  } finally {
    await a.stop();
  }
}

const BARE_NODE = "bare Node (fs.read, or createReadStream past 8 MiB) + bearer";

function mk(
  metric: string,
  unit: string,
  attic: number[],
  ref: number[],
  a: AtticProcess,
  note: string,
  referenceName = "nginx",
) {
  return figure({
    benchmark: "download",
    metric,
    unit,
    attic: median(attic),
    reference: median(ref),
    referenceName,
    higherIsBetter: true,
    atticPeakRssMiB: a.peakRssMiB(),
    atticSamples: attic,
    referenceSamples: ref,
    note,
  });
}
