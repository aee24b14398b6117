import { randomBytes } from "node:crypto";
import { sha256 } from "./child-server.ts";
import type { Client } from "./files-client.ts";

/** What the clients did and what the server acknowledged, across every crash cycle. */
export interface Ledger {
  /** Every upload ever attempted, by its unique name. */
  attempts: Map<string, { sha: string; size: number }>;
  /** Uploads answered 201: id → name. */
  acked: Map<string, string>;
  /** Deletes answered 200. */
  deleted: Set<string>;
  /** Deletes sent but not answered (the kill came first): either outcome is allowed. */
  deleteInDoubt: Set<string>;
  /** Ids whose content has been downloaded and checked once. */
  verified: Set<string>;
  dirs: string[];
}

export function newLedger(): Ledger {
  return {
    attempts: new Map(),
    acked: new Map(),
    deleted: new Set(),
    deleteInDoubt: new Set(),
    verified: new Set(),
    dirs: [],
  };
}

/** A small seeded PRNG (mulberry32) so a failing run can be replayed with CRASH_SEED. */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const live = (l: Ledger) =>
  [...l.acked.keys()].filter((id) => !l.deleted.has(id) && !l.deleteInDoubt.has(id));

/** Uploads 1 KiB–1 MiB files into random directories until `stop()` says so or the server is gone. */
async function uploader(c: Client, l: Ledger, rnd: () => number, stop: () => boolean, tag: string) {
  for (let i = 0; !stop(); i++) {
    const name = `${tag}-${i}.bin`;
    const data = randomBytes(1024 + Math.floor(rnd() * 1024 * 1024));
    l.attempts.set(name, { sha: sha256(data), size: data.length });
    const parent = rnd() < 0.3 ? undefined : l.dirs[Math.floor(rnd() * l.dirs.length)];
    const r = await c.upload(name, data, parent);
    if (r.status === 201) l.acked.set((r.body as { id: string }).id, name);
    else throw new Error(`upload ${name} answered ${r.status}: ${JSON.stringify(r.body)}`);
  }
}

/** Moves random live files between directories. */
async function mover(c: Client, l: Ledger, rnd: () => number, stop: () => boolean) {
  while (!stop()) {
    const ids = live(l);
    const id = ids[Math.floor(rnd() * ids.length)];
    if (!id) {
      await new Promise((r) => setTimeout(r, 20));
      continue;
    }
    const to = l.dirs[Math.floor(rnd() * l.dirs.length)];
    const r = await c.json("POST", `/api/v1/files/${id}/move`, { new_parent_id: to });
    if (r.status >= 500) throw new Error(`move answered ${r.status}: ${JSON.stringify(r.body)}`);
  }
}

/** Deletes random live files, recording acknowledged and in-doubt deletes. */
async function deleter(c: Client, l: Ledger, rnd: () => number, stop: () => boolean) {
  while (!stop()) {
    await new Promise((r) => setTimeout(r, 150));
    const ids = live(l);
    const id = ids[Math.floor(rnd() * ids.length)];
    if (!id) continue;
    l.deleteInDoubt.add(id);
    const r = await c.json("DELETE", `/api/v1/files/${id}`);
    if (r.status !== 200) throw new Error(`delete answered ${r.status}: ${JSON.stringify(r.body)}`);
    l.deleteInDoubt.delete(id);
    l.deleted.add(id);
  }
}

/**
 * Runs uploads, moves and deletes concurrently and calls `kill` after
 * `killAfterMs`. Errors after the kill are the point (connections cut);
 * errors before it are returned as failures.
 */
export async function chaos(
  c: Client,
  l: Ledger,
  rnd: () => number,
  killAfterMs: number,
  kill: () => Promise<void>,
) {
  let killed = false;
  const failures: string[] = [];
  const stop = () => killed;
  const guard = (p: Promise<void>) =>
    p.catch((err: Error) => {
      if (!killed) failures.push(err.message);
    });
  const cycleTag = `u${Date.now().toString(36)}`;
  const workers = [
    ...[0, 1, 2, 3].map((w) => guard(uploader(c, l, rnd, stop, `${cycleTag}-${w}`))),
    guard(mover(c, l, rnd, stop)),
    guard(mover(c, l, rnd, stop)),
    guard(deleter(c, l, rnd, stop)),
  ];
  await new Promise((r) => setTimeout(r, killAfterMs));
  killed = true;
  await kill();
  await Promise.all(workers);
  return failures;
}

/** Every live file: the top level and each directory's children, paged. */
export async function listAll(c: Client, dirs: string[]) {
  const out = new Map<string, { name: string; size: number; hash: string; type: string }>();
  for (const parent of [undefined, ...dirs]) {
    for (let offset = 0; ; offset += 1000) {
      const q = `limit=1000&offset=${offset}${parent ? `&parent_id=${parent}` : ""}`;
      const r = await c.json("GET", `/api/v1/files?${q}`);
      if (r.status !== 200) throw new Error(`list ${q} answered ${r.status}`);
      const page = (
        r.body as { files: { id: string; name: string; size: number; hash: string; type: string }[] }
      ).files;
      for (const f of page) out.set(f.id, f);
      if (page.length < 1000) break;
    }
  }
  return out;
}
