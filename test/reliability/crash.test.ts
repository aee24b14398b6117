import { existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterAll, describe, expect, it } from "vitest";
import { type ChildServer, dbFile, loginAdmin, report, sha256, spawnServer } from "./helpers/child-server.ts";
import { chaos, type Ledger, listAll, newLedger, prng } from "./helpers/crash-workload.ts";
import { type Client, client, expectUploadWorks } from "./helpers/files-client.ts";

const CYCLES = Number(process.env.CRASH_CYCLES ?? 10);
const SEED = Number(process.env.CRASH_SEED ?? Date.now() % 1_000_000);
/** Re-downloads of already verified files per cycle (new files are always downloaded). */
const RECHECK_SAMPLE = 10;

function integrityCheck(dataDir: string): string {
  const db = new Database(dbFile(dataDir));
  try {
    return db.pragma("integrity_check", { simple: true }) as string;
  } finally {
    db.close();
  }
}

/** After a restart: acknowledged files are all there and intact; nothing else is half-there. */
async function verify(c: Client, l: Ledger, rnd: () => number): Promise<number> {
  const listed = await listAll(c, l.dirs);
  for (const [id, name] of l.acked) {
    if (l.deleted.has(id)) expect(listed.has(id), `deleted ${name} is listed`).toBe(false);
    else if (!l.deleteInDoubt.has(id)) expect(listed.has(id), `acknowledged ${name} is missing`).toBe(true);
  }
  const toDownload: string[] = [];
  for (const [id, f] of listed) {
    if (f.type === "directory") continue;
    const attempt = l.attempts.get(f.name);
    expect(attempt, `unknown file ${f.name} listed`).toBeDefined();
    expect(f.size, `${f.name} size`).toBe(attempt!.size);
    expect(f.hash, `${f.name} hash`).toBe(attempt!.sha);
    if (!l.verified.has(id) || rnd() < RECHECK_SAMPLE / listed.size) toDownload.push(id);
  }
  for (const id of toDownload) {
    const f = listed.get(id)!;
    const got = await c.download(id);
    expect(got.status, `download ${f.name}`).toBe(200);
    expect(sha256(got.bytes), `content of ${f.name}`).toBe(l.attempts.get(f.name)!.sha);
    l.verified.add(id);
  }
  return listed.size;
}

describe("crash: kill -9 during concurrent uploads, moves and deletes", () => {
  const dataDir = mkdtempSync(join(tmpdir(), "attic-crash-"));
  let s: ChildServer | undefined;
  afterAll(async () => {
    await s?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it(`survives ${CYCLES} kills with every acknowledged file intact`, async () => {
    const rnd = prng(SEED);
    const l = newLedger();
    report(`crash seed ${SEED} (replay with CRASH_SEED=${SEED})`);
    for (let cycle = 0; cycle <= CYCLES; cycle++) {
      s = await spawnServer(dataDir);
      const tmp = join(dataDir, "tmp");
      expect(existsSync(tmp) ? readdirSync(tmp) : [], "temp files left after start-up").toEqual([]);
      const c = client(s.url, await loginAdmin(s.url));
      if (cycle === 0) {
        await expectUploadWorks(c);
        l.attempts.set("probe.txt", { sha: sha256("probe"), size: 5 });
        for (const name of ["a", "b", "c"]) {
          const r = await c.json("POST", "/api/v1/directories", { name });
          expect(r.status).toBe(201);
          l.dirs.push((r.body as { id: string }).id);
        }
      }
      const count = await verify(c, l, rnd);
      if (cycle === CYCLES) {
        report(
          `crash: ${CYCLES} cycles, ${l.acked.size} uploads acknowledged, ${l.deleted.size} deletes, ${count} listed`,
        );
        break;
      }
      const killAfter = 300 + Math.floor(rnd() * 1200);
      const server = s;
      const failures = await chaos(c, l, rnd, killAfter, () => server.kill9());
      expect(failures, `errors before the kill in cycle ${cycle}`).toEqual([]);
      expect(integrityCheck(dataDir), `integrity after kill ${cycle + 1}`).toBe("ok");
    }
  });
});
