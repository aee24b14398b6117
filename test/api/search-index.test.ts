import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer, type TestServer } from "../helpers/server.ts";

/**
 * The search index follows every change to the tree, through the files API:
 * the FTS triggers run in the same transaction as each change, so a search
 * right after the response already sees it.
 */
describe("search index stays exact", () => {
  let s: TestServer;
  let token: string;
  const api = (method: string, path: string, body?: unknown) =>
    s.api(method, `/api/v1${path}`, { token, body });
  const paths = async (q: string) => {
    const r = await api("GET", `/search?q=${encodeURIComponent(q)}&limit=1000`);
    expect(r.status, r.text).toBe(200);
    return (r.body.files as { path: string }[]).map((f) => f.path).sort();
  };
  const mkdir = async (name: string, parent_id?: string) => {
    const r = await api("POST", "/directories", { name, parent_id });
    expect(r.status, r.text).toBe(201);
    return r.body.file.id as string;
  };
  const upload = async (name: string, parent_id: string) => {
    const form = new FormData();
    form.append("parent_id", parent_id);
    form.append("file", new Blob([`content of ${name}`]), name);
    const r = await s.api("POST", "/api/v1/files", { token, body: form });
    expect(r.status, r.text).toBe(201);
    return r.body.id as string;
  };
  /** FTS5's own check that the index matches the files table exactly. */
  const integrity = () =>
    s.server.ctx.db.$client
      .prepare("INSERT INTO files_fts(files_fts, rank) VALUES ('integrity-check', 1)")
      .run();

  beforeAll(async () => {
    s = await startServer();
    token = await s.login();
  });
  afterAll(() => s.close());

  it("follows upload, rename, directory rename and move, copy, delete, restore and purge", async () => {
    const trips = await mkdir("Trips");
    const holiday = await mkdir("Holiday 2019", trips);
    const archive = await mkdir("Archive");
    const photo = await upload("IMG_0042.jpg", holiday);
    expect(await paths("img_0042")).toEqual(["/Trips/Holiday 2019/IMG_0042.jpg"]);

    expect((await api("PATCH", `/files/${photo}`, { name: "Sunset.jpg" })).status).toBe(200);
    expect(await paths("img_0042")).toEqual([]);
    expect(await paths("sunset")).toEqual(["/Trips/Holiday 2019/Sunset.jpg"]);

    // Renaming a directory re-paths its whole subtree.
    expect((await api("PATCH", `/files/${trips}`, { name: "Voyages" })).status).toBe(200);
    expect(await paths("trips")).toEqual([]);
    expect(await paths("voyages sunset")).toEqual(["/Voyages/Holiday 2019/Sunset.jpg"]);

    // Moving a directory does too.
    expect((await api("POST", `/directories/${holiday}/move`, { new_parent_id: archive })).status).toBe(200);
    expect(await paths("voyages")).toEqual(["/Voyages"]);
    expect(await paths("archive sunset")).toEqual(["/Archive/Holiday 2019/Sunset.jpg"]);

    const copy = await api("POST", `/files/${photo}/copy`, {
      destination_parent_id: trips,
      new_name: "Sunset copy.jpg",
    });
    expect(copy.status, copy.text).toBe(201);
    expect(await paths("sunset")).toEqual(["/Archive/Holiday 2019/Sunset.jpg", "/Voyages/Sunset copy.jpg"]);

    expect((await api("DELETE", `/files/${photo}`)).status).toBe(200);
    expect(await paths("sunset")).toEqual(["/Voyages/Sunset copy.jpg"]);
    expect((await api("POST", `/trash/${photo}/restore`)).status).toBe(200);
    expect(await paths("sunset")).toEqual(["/Archive/Holiday 2019/Sunset.jpg", "/Voyages/Sunset copy.jpg"]);

    // A directory deleted recursively takes its subtree out of search, and back on restore.
    expect((await api("DELETE", `/directories/${holiday}?recursive=true`)).status).toBe(200);
    expect(await paths("sunset")).toEqual(["/Voyages/Sunset copy.jpg"]);
    expect((await api("POST", `/trash/${holiday}/restore`)).status).toBe(200);
    expect(await paths("sunset")).toEqual(["/Archive/Holiday 2019/Sunset.jpg", "/Voyages/Sunset copy.jpg"]);

    expect((await api("DELETE", `/files/${copy.body.id}`)).status).toBe(200);
    expect((await api("DELETE", `/trash/${copy.body.id}`)).status).toBe(200);
    expect(await paths("sunset")).toEqual(["/Archive/Holiday 2019/Sunset.jpg"]);
    expect(() => integrity()).not.toThrow();
  });
});
