import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { REF_TOKEN } from "./hono-ref.ts";
import { startAttic, uploadWithCurl, WORK } from "./lib/attic.ts";
import { warm } from "./lib/data.ts";
import { startNginx } from "./lib/nginx.ts";
import { freePort, pinned, SRV_CPU, statusMiB, stopChild, waitPort } from "./lib/proc.ts";
import { type Figure, figure, say } from "./lib/report.ts";
import { median } from "./lib/stats.ts";
import { wrk } from "./lib/wrk.ts";

const WRK_RUNS = Number(process.env.WRK_RUNS ?? 3);
const WRK_D = Number(process.env.WRK_D ?? 4);
const WRK_C = Number(process.env.WRK_C ?? 16);
const LISTING = 1000;
const RANGE_FILE = 64 * 1024 * 1024;

interface Target {
  name: string;
  url: string;
  authorization?: string;
  range?: boolean;
}

/** Runs each target in turn, WRK_RUNS rounds, after a warm-up of each; medians in req/s. */
async function interleaved(targets: Target[]): Promise<number[][]> {
  const once = (t: Target, seconds: number, seed: number) =>
    wrk({
      url: t.url,
      connections: WRK_C,
      seconds,
      ...(t.authorization ? { authorization: t.authorization } : {}),
      ...(t.range ? { range: { fileSize: RANGE_FILE, length: 65536, seed } } : {}),
    });
  for (const t of targets) await once(t, 2, 99);
  const samples = targets.map(() => [] as number[]);
  for (let i = 0; i < WRK_RUNS; i++) {
    for (const [k, t] of targets.entries()) {
      const r = await once(t, WRK_D, i + 1);
      if (r.non2xx || r.socketErrors)
        say(`paths: ${t.name}: ${r.non2xx} non-2xx, ${r.socketErrors} socket errors`);
      samples[k]!.push(r.rps);
    }
  }
  return samples;
}

/**
 * The small requests a household's server lives on, each against the
 * strongest reference on the same bytes in the same run: a 4 KiB file, random
 * 64 KiB ranges of a 64 MiB file, a 1000-entry directory listing as JSON, and
 * a file's metadata. References: nginx (static file, `autoindex_format json`)
 * and a bare Node `http` server answering with one `fs.read` (node-ref.ts),
 * which shows how much of a gap is Node's own.
 */
export async function pathsBench(): Promise<Figure[]> {
  const a = await startAttic();
  const root = mkdtempSync(join(WORK, "paths-"));
  const port = await freePort();
  const [cmd, args] = pinned(SRV_CPU, process.execPath, [join(import.meta.dirname, "node-ref.ts")]);
  const nodeRef = spawn(cmd, args, {
    env: { ...process.env, PORT: String(port), ROOT: root },
    stdio: "inherit",
  });
  let ngx: Awaited<ReturnType<typeof startNginx>> | undefined;
  try {
    writeFileSync(join(root, "small.bin"), randomBytes(4096));
    writeFileSync(join(root, "ranges.bin"), randomBytes(RANGE_FILE));
    const small = (await uploadWithCurl(a, join(root, "small.bin"), "small.bin")).file;
    const ranged = (await uploadWithCurl(a, join(root, "ranges.bin"), "ranges.bin")).file;
    const dir = await a.api("POST", "/api/v1/directories", { name: "listing" });
    if (dir.status !== 201) throw new Error(`cannot create the listing directory: ${dir.status}`);
    const dirId = (dir.body as { file: { id: string } }).file.id;
    mkdirSync(join(root, "list"));
    for (let i = 0; i < LISTING; i++) {
      const name = `photo-${String(i).padStart(4, "0")}.jpg`;
      writeFileSync(join(root, "list", name), "");
      const form = new FormData();
      form.append("parent_id", dirId);
      form.append("file", new Blob([`listing entry ${i}\n`]), name);
      const res = await fetch(`${a.url}/api/v1/files`, {
        method: "POST",
        headers: { authorization: `Bearer ${a.token}` },
        body: form,
      });
      if (res.status !== 201)
        throw new Error(`seeding the listing: upload answered ${res.status}: ${await res.text()}`);
      await res.arrayBuffer();
    }
    await warm(join(root, "ranges.bin"));
    ngx = await startNginx(root, { locations: "location /list/ { autoindex on; autoindex_format json; }" });
    await waitPort(port);
    const atticAuth = `Bearer ${a.token}`;
    const refAuth = `Bearer ${REF_TOKEN}`;
    const api = `${a.url}/api/v1`;
    const node = `http://127.0.0.1:${port}`;
    const cases: { metric: string; targets: Target[] }[] = [
      {
        metric: "4 KiB file download",
        targets: [
          { name: "attic", url: `${api}/files/${small.id}/download`, authorization: atticAuth },
          { name: "nginx", url: `${ngx.url}/small.bin` },
          { name: "bare Node fs.read + bearer", url: `${node}/small.bin`, authorization: refAuth },
        ],
      },
      {
        metric: "random 64 KiB ranges of 64 MiB",
        targets: [
          { name: "attic", url: `${api}/files/${ranged.id}/download`, authorization: atticAuth, range: true },
          { name: "nginx", url: `${ngx.url}/ranges.bin`, range: true },
          {
            name: "bare Node fs.read + bearer",
            url: `${node}/ranges.bin`,
            authorization: refAuth,
            range: true,
          },
        ],
      },
      {
        metric: `directory listing, ${LISTING} entries, JSON`,
        targets: [
          {
            name: "attic",
            url: `${api}/files?parent_id=${dirId}&limit=${LISTING}`,
            authorization: atticAuth,
          },
          { name: "nginx autoindex_format json", url: `${ngx.url}/list/` },
        ],
      },
      {
        metric: "GET /api/v1/files/:id (metadata)",
        targets: [
          { name: "attic", url: `${api}/files/${small.id}`, authorization: atticAuth },
          { name: "nginx, 4 KiB static file", url: `${ngx.url}/small.bin` },
        ],
      },
    ];
    const figures: Figure[] = [];
    for (const c of cases) {
      const samples = await interleaved(c.targets);
      const attic = samples[0]!;
      for (const [k, t] of c.targets.entries()) {
        if (k === 0) continue;
        figures.push(
          figure({
            benchmark: "paths",
            metric: `${c.metric}, c${WRK_C}`,
            unit: "req/s",
            attic: median(attic),
            reference: median(samples[k]!),
            referenceName: t.name,
            higherIsBetter: true,
            atticPeakRssMiB: a.peakRssMiB(),
            atticSamples: attic,
            referenceSamples: samples[k]!,
            note: `${WRK_RUNS}x${WRK_D}s interleaved`,
          }),
        );
      }
    }
    // Issue 13 bounds Attic's RSS after this run (not its peak): read once the load is over, next to
    // the bare Node server's after the same file requests.
    await new Promise((r) => setTimeout(r, 2000));
    const after = statusMiB(a.pid, "VmRSS");
    figures.push(
      figure({
        benchmark: "paths",
        metric: "RSS after the run, 2 s idle (lower is better)",
        unit: "MiB",
        attic: after,
        reference: statusMiB(nodeRef.pid, "VmRSS"),
        referenceName: "bare Node server, same run",
        higherIsBetter: false,
        atticPeakRssMiB: a.peakRssMiB(),
        atticSamples: [after],
        referenceSamples: [statusMiB(nodeRef.pid, "VmRSS")],
        note: `anonymous ${statusMiB(a.pid, "RssAnon").toFixed(1)} MiB`,
      }),
    );
    return figures;
  } finally {
    await ngx?.stop();
    await stopChild(nodeRef);
    await a.stop();
    rmSync(root, { recursive: true, force: true });
  }
}
