import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { getBytes, upload } from "../helpers/files.ts";
import { startServer, type TestServer } from "../helpers/server.ts";

describe("files: accessed_at", () => {
  let s: TestServer;
  let token: string;
  beforeAll(async () => {
    s = await startServer();
    token = await s.login();
  });
  afterAll(() => s.close());

  /** Puts the row's accessed_at in the past, as if last read long ago. */
  const age = (id: string, iso: string) =>
    s.server.ctx.db.$client.prepare("UPDATE files SET accessed_at = ? WHERE id = ?").run(iso, id);

  it("refreshes accessed_at on a read when it is over a day old, at most once a day, leaving updated_at", async () => {
    const up = await upload(s, token, "read-me.txt", "hello");
    expect(up.status).toBe(201);
    const { id, updated_at } = up.body;
    const twoDaysAgo = new Date(Date.now() - 2 * 86400_000).toISOString();
    age(id, twoDaysAgo);

    expect((await getBytes(s, token, `/api/v1/files/${id}/download`)).status).toBe(200);
    const after = (await s.api("GET", `/api/v1/files/${id}`, { token })).body;
    expect(Date.parse(after.accessed_at)).toBeGreaterThan(Date.parse(twoDaysAgo) + 86400_000);
    expect(after.updated_at).toBe(updated_at);

    // A second read within the day writes nothing.
    const oneHourAgo = new Date(Date.now() - 3600_000).toISOString();
    age(id, oneHourAgo);
    expect((await getBytes(s, token, `/api/v1/files/${id}/content`)).status).toBe(200);
    expect((await s.api("GET", `/api/v1/files/${id}`, { token })).body.accessed_at).toBe(oneHourAgo);
  });

  it("does not count metadata reads as access", async () => {
    const up = await upload(s, token, "meta.txt", "x");
    const old = new Date(Date.now() - 3 * 86400_000).toISOString();
    age(up.body.id, old);
    expect((await s.api("GET", `/api/v1/files/${up.body.id}`, { token })).body.accessed_at).toBe(old);
  });
});
