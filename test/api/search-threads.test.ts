import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { newId, nowIso } from "../../src/platform/ids.ts";
import { startServer, type TestServer } from "../helpers/server.ts";
import { orgOfToken, seedOrgUser } from "../helpers/tree-seed.ts";

/** Rows seeded: enough that the search below reads for a while (it reads and sorts every one). */
const ROWS = 100_000;
/** A search whose every plan reads every file: one letter each file name holds (no folder name does), by date. */
const SLOW = "/api/v1/search?q=e&sort_by=updated_at&sort_order=desc";
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
    expect(r.body.files[0].name).toBe(
      `${WORDS[(ROWS - ROWS / 1000 - 1) % WORDS.length]} ${ROWS - ROWS / 1000 - 1}.txt`,
    );
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
});
