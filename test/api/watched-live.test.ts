import { mkdirSync, renameSync, rmSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, it } from "vitest";
import { startServer, type TestServer } from "../helpers/server.ts";
import { folders, hostTree, waitFor, write } from "./watched.helpers.ts";

/** Live sync after the first scan: host changes that live watching must follow. */
describe("live sync of watched folders", () => {
  let s: TestServer;
  let f: ReturnType<typeof folders>;
  const roots: string[] = [];
  /** A watched host tree, scanned and live. */
  const mounted = async (name: string, files: Record<string, string>) => {
    const root = hostTree(files);
    roots.push(root);
    const { body } = await f.create({ name, path: root });
    await f.settled(body.id);
    return { root, id: body.id as string };
  };
  const listed = (id: string, want: string[]) =>
    waitFor(
      () => f.names(id),
      (names) => JSON.stringify(names) === JSON.stringify([...want].sort()),
    );

  beforeAll(async () => {
    s = await startServer({ watch: { debounce: 0.2 } });
    f = folders(s, await s.login());
  });
  afterAll(async () => {
    await s.close();
    for (const r of roots) rmSync(r, { recursive: true, force: true });
  });

  it("follows a directory made at the name of one moved away or deleted", async () => {
    const { root, id } = await mounted("Swapped", { "d/a.txt": "a", "e/b.txt": "b" });
    renameSync(join(root, "d"), join(root, "d.old"));
    mkdirSync(join(root, "d"));
    rmSync(join(root, "e"), { recursive: true });
    mkdirSync(join(root, "e"));
    await listed(id, ["/Swapped/d.old/a.txt"]);
    write(root, "d/new.txt", "n");
    write(root, "e/new.txt", "n");
    await listed(id, ["/Swapped/d.old/a.txt", "/Swapped/d/new.txt", "/Swapped/e/new.txt"]);
  });
});
