import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ChildServer, loginAdmin, report, spawnServer } from "./helpers/child-server.ts";
import { type Client, client } from "./helpers/files-client.ts";
import { percentile } from "./helpers/stats.ts";

const CLIENTS = 200;
const DURATION_MS = Number(process.env.LOAD_SECONDS ?? 20) * 1000;
/** Peak RSS allowed for the server under this load: far above normal, far below a leak. */
const RSS_LIMIT_MIB = 1024;

type Op = (c: Client, ids: string[], n: number) => Promise<number>;

/** The mixed workload: mostly reads, some small uploads, downloads and searches. */
const OPS: Record<string, { weight: number; run: Op }> = {
  list: { weight: 30, run: async (c) => (await c.json("GET", "/api/v1/files?limit=50")).status },
  get: {
    weight: 25,
    run: async (c, ids, n) => (await c.json("GET", `/api/v1/files/${ids[n % ids.length]}`)).status,
  },
  download: { weight: 15, run: async (c, ids, n) => (await c.download(ids[n % ids.length]!)).status },
  search: {
    weight: 15,
    run: async (c, _ids, n) => (await c.json("GET", `/api/v1/search?q=seed-${n % 50}`)).status,
  },
  upload: {
    weight: 10,
    run: async (c, _ids, n) => (await c.upload(`load-${n}.bin`, randomBytes(4096))).status,
  },
  health: { weight: 5, run: async (c) => (await fetch(`${c.url}/health`)).status },
};

function pick(r: number): string {
  let acc = 0;
  const total = Object.values(OPS).reduce((s, o) => s + o.weight, 0);
  for (const [name, o] of Object.entries(OPS)) {
    acc += o.weight;
    if (r * total < acc) return name;
  }
  return "health";
}

describe("load: 200 concurrent clients, mixed workload", () => {
  let s: ChildServer;
  let c: Client;
  const ids: string[] = [];
  const dataDir = mkdtempSync(join(tmpdir(), "attic-load-"));
  beforeAll(async () => {
    s = await spawnServer(dataDir);
    c = client(s.url, await loginAdmin(s.url));
    for (let i = 0; i < 50; i++) {
      const r = await c.upload(`seed-${i}.txt`, randomBytes(16 * 1024));
      if (r.status !== 201) throw new Error(`seeding failed: ${r.status} ${JSON.stringify(r.body)}`);
      ids.push((r.body as { id: string }).id);
    }
  });
  afterAll(async () => {
    await s?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it("serves with zero 5xx and bounded memory; reports p99", async () => {
    const latencies: Record<string, number[]> = {};
    const failures: string[] = [];
    const deadline = Date.now() + DURATION_MS;
    let n = 0;
    const worker = async () => {
      while (Date.now() < deadline) {
        const op = pick(Math.random());
        const i = n++;
        const start = performance.now();
        try {
          const status = await OPS[op]!.run(c, ids, i);
          (latencies[op] ??= []).push(performance.now() - start);
          if (status >= 500 || status === 0) failures.push(`${op} -> ${status}`);
        } catch (err) {
          failures.push(`${op} -> ${(err as Error).message}`);
        }
      }
    };
    await Promise.all(Array.from({ length: CLIENTS }, worker));
    const all = Object.values(latencies).flat();
    for (const [op, l] of Object.entries(latencies)) {
      report(
        `load ${op}: ${l.length} req, p50 ${percentile(l, 50).toFixed(1)} ms, p99 ${percentile(l, 99).toFixed(1)} ms`,
      );
    }
    const rss = s.peakRssMiB();
    report(
      `load total: ${all.length} req in ${DURATION_MS / 1000} s (${(all.length / (DURATION_MS / 1000)).toFixed(0)} req/s), ` +
        `p50 ${percentile(all, 50).toFixed(1)} ms, p99 ${percentile(all, 99).toFixed(1)} ms, server peak RSS ${rss.toFixed(0)} MiB, ` +
        `failures ${failures.length}`,
    );
    expect(failures.slice(0, 10)).toEqual([]);
    expect(rss).toBeLessThan(RSS_LIMIT_MIB);
    expect((await fetch(`${s.url}/health`)).status).toBe(200);
  });
});
