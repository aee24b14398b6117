import { spawn } from "node:child_process";
import { join } from "node:path";
import { REF_TOKEN } from "./hono-ref.ts";
import { type AtticProcess, startAttic } from "./lib/attic.ts";
import { freePort, pinned, SRV_CPU, stopChild, waitPort } from "./lib/proc.ts";
import { type Figure, figure, say } from "./lib/report.ts";
import { median } from "./lib/stats.ts";
import { wrk } from "./lib/wrk.ts";

const WRK_RUNS = Number(process.env.WRK_RUNS ?? 3);
const WRK_D = Number(process.env.WRK_D ?? 5);
const WRK_C = Number(process.env.API_C ?? 64);
const SEED_FILES = 200;

/** Uploads small files so listing and GET have real rows; returns one id, or undefined when uploads are missing. */
async function seed(a: AtticProcess): Promise<string | undefined> {
  let id: string | undefined;
  for (let i = 0; i < SEED_FILES; i++) {
    const form = new FormData();
    form.append("file", new Blob([`bench file ${i}\n`.repeat(20)], { type: "text/plain" }), `file-${i}.txt`);
    const res = await fetch(`${a.url}/api/v1/files`, {
      method: "POST",
      headers: { authorization: `Bearer ${a.token}` },
      body: form,
    });
    if (res.status !== 201) {
      say(`api: upload answered ${res.status}; file cases skipped`);
      return undefined;
    }
    id ??= ((await res.json()) as { id: string }).id;
  }
  return id;
}

interface Case {
  metric: string;
  atticPath: string;
  auth: boolean;
  refPath: string;
}

/** Measures one case, interleaving Attic and the reference; undefined when Attic does not answer 200. */
async function measure(a: AtticProcess, refUrl: string, c: Case): Promise<Figure | undefined> {
  const atticAuth = c.auth ? `Bearer ${a.token}` : undefined;
  const probe = await fetch(a.url + c.atticPath, { headers: atticAuth ? { authorization: atticAuth } : {} });
  await probe.arrayBuffer();
  if (probe.status !== 200) {
    say(`api: ${c.atticPath} answered ${probe.status}; skipped`);
    return undefined;
  }
  const refAuth = c.auth ? `Bearer ${REF_TOKEN}` : undefined;
  const run = (url: string, authorization: string | undefined, seconds: number) =>
    wrk({ url, connections: WRK_C, seconds, ...(authorization ? { authorization } : {}) });
  await run(a.url + c.atticPath, atticAuth, 2); // JIT warm-up, both sides
  await run(refUrl + c.refPath, refAuth, 2);
  const attic: number[] = [];
  const ref: number[] = [];
  for (let i = 0; i < WRK_RUNS; i++) {
    const x = await run(a.url + c.atticPath, atticAuth, WRK_D);
    const y = await run(refUrl + c.refPath, refAuth, WRK_D);
    if (x.non2xx || x.socketErrors)
      say(`api: ${c.atticPath}: ${x.non2xx} non-2xx, ${x.socketErrors} socket errors`);
    attic.push(x.rps);
    ref.push(y.rps);
  }
  return figure({
    benchmark: "api",
    metric: `${c.metric} c${WRK_C}`,
    unit: "req/s",
    attic: median(attic),
    reference: median(ref),
    referenceName: `bare Hono ${c.refPath}`,
    higherIsBetter: true,
    atticPeakRssMiB: a.peakRssMiB(),
    atticSamples: attic,
    referenceSamples: ref,
    note: `${WRK_RUNS}x${WRK_D}s`,
  });
}

/**
 * Small JSON calls at 64 connections: authenticated metadata GET and list
 * (plus unauthenticated /health) against a bare Hono endpoint with a bearer check.
 */
export async function apiBench(): Promise<Figure[]> {
  const a = await startAttic();
  const port = await freePort();
  const [cmd, args] = pinned(SRV_CPU, process.execPath, [join(import.meta.dirname, "hono-ref.ts")]);
  const ref = spawn(cmd, args, { env: { ...process.env, PORT: String(port) }, stdio: "inherit" });
  try {
    await waitPort(port);
    const refUrl = `http://127.0.0.1:${port}`;
    const id = await seed(a);
    const cases: Case[] = [
      { metric: "GET /health (no auth)", atticPath: "/health", auth: false, refPath: "/api/hello" },
    ];
    if (id) {
      cases.push({
        metric: "GET /files/:id (bearer)",
        atticPath: `/api/v1/files/${id}`,
        auth: true,
        refPath: "/api/me",
      });
      cases.push({
        metric: "GET /files?limit=50 (bearer)",
        atticPath: "/api/v1/files?limit=50",
        auth: true,
        refPath: "/api/me",
      });
    }
    const figures: Figure[] = [];
    for (const c of cases) {
      const f = await measure(a, refUrl, c);
      if (f) figures.push(f);
    }
    return figures;
  } finally {
    await stopChild(ref);
    await a.stop();
  }
}
