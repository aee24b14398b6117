import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer, type TestServer } from "../helpers/server.ts";
import { orgOfToken, seedOrgUser, seedTree } from "../helpers/tree-seed.ts";

// Files are seeded straight into the `files` table (test/helpers/tree-seed.ts).

describe("tags", () => {
  let s: TestServer;
  let token: string;
  let ids: Map<string, string>;
  const api = (method: string, path: string, body?: unknown, t = token) =>
    s.api(method, `/api/v1${path}`, { token: t, body });

  beforeAll(async () => {
    s = await startServer();
    token = await s.login();
    ids = seedTree(s.server.ctx.db, orgOfToken(token), [
      { path: "/Photos/beach.jpg", size: 2_000_000 },
      { path: "/Photos/dunes.jpg", size: 500_000 },
      { path: "/Photos/sea.mp4", size: 90_000_000 },
    ]);
  });
  afterAll(() => s.close());

  it("creates, lists, gets, updates and deletes tags", async () => {
    const created = await api("POST", "/tags", { name: "Holiday", color: "#3366FF" });
    expect(created.status).toBe(201);
    expect(created.body).toEqual({
      id: expect.any(String),
      name: "Holiday",
      color: "#3366ff",
      created_at: expect.any(String),
    });
    const plain = await api("POST", "/tags", { name: "  plain  " });
    expect(plain.body).toMatchObject({ name: "plain", color: "#808080" });

    const list = await api("GET", "/tags");
    expect(list.status).toBe(200);
    expect(list.body.tags.map((t: { name: string }) => t.name)).toEqual(["Holiday", "plain"]);
    expect(list.body.total).toBe(2);
    expect((await api("GET", `/tags/${created.body.id}`)).body).toEqual(created.body);

    const renamed = await api("PATCH", `/tags/${plain.body.id}`, { name: "Plain", color: "#000000" });
    expect(renamed.status).toBe(200);
    expect(renamed.body).toMatchObject({ id: plain.body.id, name: "Plain", color: "#000000" });
    expect((await api("PUT", `/tags/${plain.body.id}`, { color: "#ffffff" })).body.color).toBe("#ffffff");

    expect((await api("DELETE", `/tags/${plain.body.id}`)).body).toEqual({ success: true });
    expect((await api("GET", `/tags/${plain.body.id}`)).status).toBe(404);
    expect((await api("DELETE", `/tags/${plain.body.id}`)).status).toBe(404);
  });

  it("keeps names unique per organization ignoring case (409)", async () => {
    await api("POST", "/tags", { name: "Work" });
    const dup = await api("POST", "/tags", { name: "WORK" });
    expect(dup.status).toBe(409);
    expect(dup.body.error.code).toBe("ERR_CONFLICT");
    const other = await api("POST", "/tags", { name: "Other" });
    const clash = await api("PATCH", `/tags/${other.body.id}`, { name: "work" });
    expect(clash.status).toBe(409);
    // Renaming a tag to its own name in another case is fine.
    expect((await api("PATCH", `/tags/${other.body.id}`, { name: "OTHER" })).status).toBe(200);
  });

  it("validates names and colors (400)", async () => {
    for (const body of [
      {},
      { name: "" },
      { name: "   " },
      { name: "x".repeat(65) },
      { name: "a\nb" },
      { name: "ok", color: "red" },
      { name: "ok", color: "#12345" },
      { name: "ok", color: "#gggggg" },
      { name: 5 },
    ]) {
      const r = await api("POST", "/tags", body);
      expect(r.status, JSON.stringify(body)).toBe(400);
      expect(r.body.error.code).toBe("ERR_VALIDATION");
    }
    const t = await api("POST", "/tags", { name: "valid" });
    expect((await api("PATCH", `/tags/${t.body.id}`, {})).status).toBe(400);
  });

  it("attaches and detaches tags on files, shown on File records and filtered by search", async () => {
    const red = (await api("POST", "/tags", { name: "red", color: "#ff0000" })).body;
    const blue = (await api("POST", "/tags", { name: "blue", color: "#0000ff" })).body;
    const beach = ids.get("/Photos/beach.jpg")!;
    const dunes = ids.get("/Photos/dunes.jpg")!;
    const one = await api("POST", `/files/${beach}/tags`, { tag_id: red.id });
    expect(one.status).toBe(200);
    expect(one.body.tags.map((t: { name: string }) => t.name)).toEqual(["red"]);
    const both = await api("POST", `/files/${beach}/tags`, { tag_ids: [red.id, blue.id] });
    expect(both.body.tags.map((t: { name: string }) => t.name)).toEqual(["blue", "red"]);
    await api("POST", `/files/${dunes}/tags`, { tag_ids: [red.id] });
    expect((await api("GET", `/files/${dunes}/tags`)).body.tags).toEqual([red]);

    const byBoth = await api("GET", `/search?tags=${red.id},${blue.id}`);
    expect(byBoth.body.files.map((f: { name: string }) => f.name)).toEqual(["beach.jpg"]);
    expect(byBoth.body.files[0].tags).toEqual([blue, red]);
    const byRed = await api("GET", `/search?tags=${red.id}&sort_by=size&sort_order=desc&min_size=100000`);
    expect(byRed.body.files.map((f: { name: string }) => f.name)).toEqual(["beach.jpg", "dunes.jpg"]);
    const withText = await api("GET", `/search?q=dune&tags=${red.id}`);
    expect(withText.body.files.map((f: { name: string }) => f.name)).toEqual(["dunes.jpg"]);
    expect((await api("GET", `/search?q=dune&tags=${blue.id}`)).body.total).toBe(0);

    expect((await api("DELETE", `/files/${beach}/tags/${blue.id}`)).body).toEqual({ success: true });
    expect((await api("DELETE", `/files/${beach}/tags/${blue.id}`)).status).toBe(200);
    expect((await api("GET", `/files/${beach}/tags`)).body.tags).toEqual([red]);
    // Deleting a tag detaches it everywhere.
    await api("DELETE", `/tags/${red.id}`);
    expect((await api("GET", `/files/${dunes}/tags`)).body.tags).toEqual([]);
  });

  it("answers 404 for missing files and tags, 400 for bad attach bodies", async () => {
    const tag = (await api("POST", "/tags", { name: "green" })).body;
    const file = ids.get("/Photos/sea.mp4")!;
    const missing = "0190a000-0000-7000-8000-00000000ffff";
    expect((await api("POST", `/files/${missing}/tags`, { tag_id: tag.id })).status).toBe(404);
    expect((await api("POST", `/files/not-an-id/tags`, { tag_id: tag.id })).status).toBe(400);
    const noTag = await api("POST", `/files/${file}/tags`, { tag_id: missing });
    expect(noTag.status).toBe(404);
    expect((await api("POST", `/files/${file}/tags`, {})).status).toBe(400);
    expect((await api("POST", `/files/${file}/tags`, { tag_id: "nope" })).status).toBe(400);
    expect((await api("GET", `/files/${missing}/tags`)).status).toBe(404);
    expect((await api("DELETE", `/files/${file}/tags/${missing}`)).status).toBe(404);
  });

  it("hides other organizations' tags and files (404) and checks permissions", async () => {
    const mine = (await api("POST", "/tags", { name: "private" })).body;
    const file = ids.get("/Photos/beach.jpg")!;
    const other = await seedOrgUser(s, "tag-other");
    expect((await api("GET", "/tags", undefined, other.token)).body.tags).toEqual([]);
    expect((await api("GET", `/tags/${mine.id}`, undefined, other.token)).status).toBe(404);
    expect((await api("PATCH", `/tags/${mine.id}`, { name: "x" }, other.token)).status).toBe(404);
    expect((await api("DELETE", `/tags/${mine.id}`, undefined, other.token)).status).toBe(404);
    expect((await api("GET", `/files/${file}/tags`, undefined, other.token)).status).toBe(404);
    const theirs = (await api("POST", "/tags", { name: "private" }, other.token)).body;
    expect(theirs.name).toBe("private");
    expect((await api("POST", `/files/${file}/tags`, { tag_id: theirs.id })).status).toBe(404);

    const reader = await seedOrgUser(s, "tag-reader", ["file:read"], orgOfToken(token));
    expect((await api("GET", "/tags", undefined, reader.token)).status).toBe(200);
    expect((await api("POST", "/tags", { name: "nope" }, reader.token)).status).toBe(403);
    expect((await api("POST", `/files/${file}/tags`, { tag_id: mine.id }, reader.token)).status).toBe(403);
    expect((await s.api("GET", "/api/v1/tags")).status).toBe(401);
  });

  it("documents the tag and search routes in the OpenAPI document", async () => {
    const doc = (await s.api("GET", "/swagger/doc.json")).body;
    for (const path of [
      "/api/v1/tags",
      "/api/v1/tags/{id}",
      "/api/v1/files/{id}/tags",
      "/api/v1/files/{id}/tags/{tagId}",
    ]) {
      expect(doc.paths[path], path).toBeDefined();
    }
    const params = doc.paths["/api/v1/search"].get.parameters.map((p: { name: string }) => p.name);
    expect(params).toEqual(
      expect.arrayContaining([
        "q",
        "path",
        "type",
        "tags",
        "min_size",
        "max_size",
        "start_date",
        "end_date",
        "limit",
        "offset",
        "sort_by",
        "sort_order",
      ]),
    );
    expect(doc.components.schemas.SearchResult.properties).toHaveProperty("total_pages");
    expect(doc.components.schemas.Tag.properties).toHaveProperty("color");
  });
});
