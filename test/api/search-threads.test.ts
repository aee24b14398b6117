import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { availableParallelism, tmpdir } from "node:os";
import { join } from "node:path";
import { Code, ConnectError } from "@connectrpc/connect";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { rowIndexer } from "../../src/db/search-index.ts";
import { SearchService } from "../../src/gen/attic/v1/search_pb.ts";
import { newId, nowIso } from "../../src/platform/ids.ts";
import { startServer, type TestServer } from "../helpers/server.ts";
import { orgOfToken, seedOrgUser } from "../helpers/tree-seed.ts";
import { rpcClient } from "../rpc/clients.ts";

/** Rows seeded: enough that the search below reads for a while (it reads and sorts every one). */
const ROWS = 100_000;
/**
 * A search whose every plan reads every file: one letter each file name holds (no folder name
 * does), smallest first, from the 90,000th (a walk of the size buckets would read most rows, so
 * the plan that reads and sorts every match answers; by date, name or relevance an index answers
 * at once).
 */
const FROM = 90_000;
const SLOW = `/api/v1/search?q=e&sort_by=size&offset=${FROM}`;
const WORDS = ["report", "escape", "beach", "invoice", "scene", "remaster", "weekend", "receipt", "letter"];

describe("searches run on threads of their own", () => {
  let s: TestServer;
  let token: string;

  beforeAll(async () => {
    s = await startServer();
    token = await s.login();
    const org = orgOfToken(token);
    const c = s.server.ctx.db.$client;
    const insert = c.prepare(
      "INSERT INTO files (id, organization_id, parent_id, name, path, type, size, mime_type, created_at, updated_at, accessed_at) " +
        "VALUES (?, ?, ?, ?, ?, ?, ?, 'application/octet-stream', ?, ?, ?)",
    );
    c.transaction(() => {
      const now = nowIso();
      const dirs: string[] = [];
      for (let d = 0; d < ROWS / 1000; d++) {
        const id = newId();
        insert.run(id, org, null, `Dir ${d}`, `/Dir ${d}`, "directory", 0, now, now, now);
        dirs.push(id);
      }
      for (let i = 0; i < ROWS - dirs.length; i++) {
        const d = i % dirs.length;
        const name = `${WORDS[i % WORDS.length]} ${i}.txt`;
        const at = new Date(Date.UTC(2020, 0, 1) + i * 60_000).toISOString();
        insert.run(newId(), org, dirs[d], name, `/Dir ${d}/${name}`, "file", i, at, at, at);
      }
      // Into the search index as the files service's inserts go (db/search-index.ts).
      rowIndexer(c)(
        c.prepare("SELECT rowid FROM files WHERE organization_id = ?").pluck().all(org) as number[],
      );
    })();
  }, 120_000);
  afterAll(async () => {
    await s?.close();
  });

  it("answers other requests while a search reads every row", async () => {
    let done = false;
    const search = s.api("GET", SLOW, { token }).finally(() => {
      done = true;
    });
    // On the event loop, the search would hold every request that came after it until it ended;
    // a request or two may slip in before it starts (its token is checked asynchronously).
    let meanwhile = 0;
    while (!done) {
      const r = await fetch(`${s.url}/health`);
      await r.arrayBuffer();
      if (!done) meanwhile++;
    }
    const r = await search;
    expect(r.status, r.text).toBe(200);
    expect(r.body.total).toBe(ROWS - ROWS / 1000);
    // File i is i bytes long.
    expect(r.body.files.slice(0, 2).map((f: { name: string }) => f.name)).toEqual([
      `report ${FROM}.txt`,
      `escape ${FROM + 1}.txt`,
    ]);
    expect(meanwhile).toBeGreaterThanOrEqual(5);
  });

  it("lets one caller run a few searches at once, refuses more with 429, and serves others first", async () => {
    const other = await seedOrgUser(s, "other-searcher");
    const ended: string[] = [];
    const mine = Array.from({ length: 6 }, (_, i) =>
      s.api("GET", SLOW, { token }).finally(() => ended.push(`mine ${i}`)),
    );
    // Once mine are all in (the refused ones answered at once), another user's search.
    await Promise.race([Promise.all(mine), new Promise((r) => setTimeout(r, 50))]);
    const theirs = await s.api("GET", "/api/v1/search?q=report", { token: other.token });
    ended.push("theirs");
    expect(theirs.status, theirs.text).toBe(200);
    const answers = await Promise.all(mine);
    expect(answers.map((r) => r.status).sort()).toEqual([200, 200, 200, 200, 429, 429]);
    expect(answers.find((r) => r.status === 429)!.body.error.code).toBe("RATE_LIMIT_EXCEEDED");
    // The other user's search waited for no search of mine that had not started (two at most run
    // at once): two of mine, at least, ended after it.
    expect(ended.indexOf("theirs")).toBeLessThanOrEqual(ended.length - 3);
  });

  it("drops a waiting search whose client went away, over REST and RPC; a running one finishes", async () => {
    const search = s.server.ctx.services.search;
    const until = async (what: string, ok: () => boolean) => {
      for (let i = 0; !ok(); i++) {
        if (i > 2000) throw new Error(`still waiting for ${what}: ${JSON.stringify(search.load())}`);
        await new Promise((r) => setTimeout(r, 5));
      }
    };
    // The server's threads (server.ts) all busy with searches of mine, two more of mine waiting.
    const threads = availableParallelism() >= 2 ? 2 : 1;
    // The RPC client's HTTP/2 session set up first: under load that took longer than a slow search.
    const rpc = rpcClient(s.url, SearchService, token);
    await rpc.search({ query: { query: "report", limit: 1 } });
    const running = Array.from({ length: threads }, () => s.api("GET", SLOW, { token }));
    await until("the threads to be busy", () => search.load().running === threads);
    const gone = new AbortController();
    const waiting = [
      fetch(`${s.url}${SLOW}`, { headers: { authorization: `Bearer ${token}` }, signal: gone.signal }).catch(
        (err: Error) => err.name,
      ),
      rpc
        .search({ query: { query: "e", sortBy: "updated_at", sortOrder: "desc" } }, { signal: gone.signal })
        .catch((err: unknown) => Code[ConnectError.from(err).code]),
    ];
    await until("two searches waiting", () => search.load().waiting === 2);
    const answered = search.load().answered;
    gone.abort();
    await until("the queue to empty", () => search.load().waiting === 0);
    // Emptied by the aborts, not by a running search ending and making room for a waiting one.
    expect(search.load().answered).toBe(answered);
    expect(await Promise.all(waiting)).toEqual(["AbortError", "Canceled"]);
    expect((await Promise.all(running)).map((r) => r.status)).toEqual(Array(threads).fill(200));
  });

  it("keeps a process that waits only for a search alive until it is answered and the threads are closed", () => {
    // The threads never keep the process alive by themselves (an idle server must be able to exit);
    // a script whose only work is a search must still get its answer, then end once they are closed.
    const dir = mkdtempSync(join(tmpdir(), "attic-search-exit-"));
    const src = (m: string) => JSON.stringify(new URL(`../../src/${m}`, import.meta.url).pathname);
    try {
      const script = join(dir, "search-once.ts");
      writeFileSync(
        script,
        [
          `import { openDb } from ${src("db/client.ts")};`,
          `import { createAccessRepo } from ${src("domain/access/access.repo.ts")};`,
          `import { createAccess } from ${src("domain/access/access.ts")};`,
          `import { createSearchService } from ${src("domain/search/search.service.ts")};`,
          `const db = openDb({ file: ${JSON.stringify(join(dir, "t.db"))} });`,
          "const search = createSearchService({ db, access: createAccess(createAccessRepo(db)),",
          "  threads: { file: db.$client.name, threads: 1, cacheKib: 1024, idleMs: 60_000, perCaller: 4, maxWaiting: 8 } });",
          `const actor = { userId: "u", username: "u", organizationId: "o", permissions: ["*:*"], isInstanceAdmin: false, via: "jwt" };`,
          `const r = await search.search(actor, { q: "holiday" });`,
          `console.log("total " + r.total);`,
          "await search.close();",
          `console.log("closed");`,
        ].join("\n"),
      );
      const run = spawnSync(process.execPath, [script], { encoding: "utf8", timeout: 60_000 });
      expect(run.stdout + run.stderr).toBe("total 0\nclosed\n");
      expect(run.status).toBe(0);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
