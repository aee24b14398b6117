import { mkdirSync, mkdtempSync, renameSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { startServer, type TestServer } from "../helpers/server.ts";
import { folders, hostTree, waitFor } from "./watched.helpers.ts";

/** The host policy (system dirs, the data dir, watch.allowed_roots) over watched folders. */
describe("watched folders and the host policy", () => {
  const cleanup: string[] = [];
  let s: TestServer | undefined;
  afterAll(async () => {
    await s?.close();
    for (const p of cleanup) rmSync(p, { recursive: true, force: true });
  });

  /** A folder watching `root`, made by a server on `dataDir`; answers its id and its file's id. */
  const mountedBefore = async (dataDir: string, root: string) => {
    const first = await startServer({ watch: { debounce: 0.2 } }, { keepDataDir: dataDir });
    try {
      const f = folders(first, await first.login());
      const { body } = await f.create({ name: "Share", path: root });
      await f.settled(body.id);
      const files = await first.api("GET", `/api/v1/watched-folders/${body.id}/files`, {
        token: await first.login(),
      });
      return { id: body.id as string, fileId: files.body.files[0].id as string };
    } finally {
      await first.close();
    }
  };

  // It holds for folders made before it changed, not only when a folder is created.
  it("neither scans nor serves a folder that now holds Attic's data directory", async () => {
    const root = hostTree({ "photo.jpg": "p" });
    const dataDir = mkdtempSync(join(tmpdir(), "attic-moved-data-"));
    cleanup.push(root, dataDir);
    const { id, fileId } = await mountedBefore(dataDir, root);
    // The admin moves the data dir onto the share (a bigger disk), keeping the folder.
    const moved = join(root, "attic-data");
    renameSync(dataDir, moved);
    s = await startServer({ watch: { debounce: 0.2 } }, { keepDataDir: moved });
    const token = await s.login();
    const f = folders(s, token);
    const folder = await waitFor(
      () => f.get(id),
      (x) => x.status === "error",
    );
    expect(folder.status_message).toMatch(/data directory/);
    // Not one of Attic's own files (its database, its blobs) reaches the tree.
    const files = await s.api("GET", `/api/v1/watched-folders/${id}/files?limit=100`, { token });
    expect(files.body.files.map((x: { path: string }) => x.path)).toEqual(["/Share/photo.jpg"]);
    const search = await s.api("GET", "/api/v1/search?q=attic", { token });
    expect(search.body.total).toBe(0);
    const dl = await s.api("GET", `/api/v1/files/${fileId}/download`, { token });
    expect([dl.status, dl.body.error?.code]).toEqual([403, "ERR_FORBIDDEN_PATH"]);
    await s.close();
    s = undefined;
  });

  it("neither scans nor serves a folder outside watch.allowed_roots once they are narrowed", async () => {
    const allowed = hostTree({});
    const root = hostTree({ "doc.txt": "d" });
    const dataDir = mkdtempSync(join(tmpdir(), "attic-narrowed-"));
    cleanup.push(allowed, root, dataDir);
    const { id, fileId } = await mountedBefore(dataDir, root);
    s = await startServer({ watch: { debounce: 0.2, allowed_roots: [allowed] } }, { keepDataDir: dataDir });
    const token = await s.login();
    const folder = await waitFor(
      () => folders(s!, token).get(id),
      (x) => x.status === "error",
    );
    expect(folder.status_message).toMatch(/allowed roots/);
    const dl = await s.api("GET", `/api/v1/files/${fileId}/download`, { token });
    expect([dl.status, dl.body.error?.code]).toEqual([403, "ERR_FORBIDDEN_PATH"]);
  });

  it("allows folders inside an allowed root that is reached through a symlink", async () => {
    // /srv/media -> /mnt/disk1/media, say: the admin names the link in watch.allowed_roots.
    const disk = hostTree({ "movies/film.mkv": "f" });
    const links = hostTree({});
    cleanup.push(disk, links);
    const allowed = join(links, "media");
    symlinkSync(disk, allowed);
    mkdirSync(join(disk, "shows"));
    s = await startServer({ watch: { allowed_roots: [allowed] } });
    const token = await s.login();
    const suggested = await s.api(
      "GET",
      `/api/v1/filesystem/path-suggestions?prefix=${encodeURIComponent(`${allowed}/`)}`,
      { token },
    );
    expect([suggested.status, suggested.body.suggestions]).toEqual([
      200,
      [`${allowed}/movies`, `${allowed}/shows`],
    ]);
    const created = await folders(s, token).create({ name: "Movies", path: join(allowed, "movies") });
    expect([created.status, created.body.path]).toEqual([201, join(disk, "movies")]);
    // Still nothing outside it, through the link or not.
    const outside = await folders(s, token).create({ name: "Links", path: links });
    expect([outside.status, outside.body.error?.code]).toEqual([403, "ERR_FORBIDDEN_PATH"]);
    await s.close();
    s = undefined;
  });
});
