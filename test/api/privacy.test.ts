import { rmSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createUser, type Session } from "../helpers/accounts.ts";
import { mkdir, upload } from "../helpers/files.ts";
import { startServer, type TestServer } from "../helpers/server.ts";
import { hostTree, waitFor } from "./watched.helpers.ts";

/**
 * Family privacy (issue 19): a household of an admin, two parents and two
 * kids, groups "parents" and "kids", and the grant matrix
 * "Movies: everyone reads; Photos: parents write, kids read; Tax: parents
 * only", with a narrowed and a widened subfolder, personal folders, and every
 * path to a file: get, list, children counts, tree, search, download, stream
 * tokens, playback, tags, copy, move, trash, watched folders.
 */
describe("folder grants and personal folders", () => {
  let s: TestServer;
  let admin: string;
  let mom: Session;
  let dad: Session;
  let kid1: Session;
  let kid2: Session;
  const ids: Record<string, string> = {};
  let host: string;

  const api = (token: string, method: string, path: string, body?: unknown) =>
    s.api(method, path, { token, body });
  const grant = (token: string, directory_id: string | null, grants: unknown[]) =>
    api(token, "PUT", "/api/v1/grants", { directory_id, grants });
  const group = (id: string, level: string) => ({ subject_type: "group", subject_id: id, level });
  const status = async (token: string, method: string, path: string, body?: unknown) =>
    (await api(token, method, path, body)).status;
  const names = async (token: string, parent?: string) => {
    const r = await api(token, "GET", `/api/v1/files${parent ? `?parent_id=${parent}` : ""}`);
    expect(r.status).toBe(200);
    return (r.body.files as { name: string }[]).map((f) => f.name).sort();
  };
  const searchTotal = async (token: string, q: string) => {
    const r = await api(token, "GET", `/api/v1/search?q=${encodeURIComponent(q)}`);
    expect(r.status).toBe(200);
    return r.body.total as number;
  };

  beforeAll(async () => {
    host = hostTree({ "Scans/bank-statement.pdf": "bank", "Scans/deep/loan.pdf": "loan" });
    s = await startServer({ watch: { allowed_roots: [host], debounce: 0.2 } });
    admin = await s.login();
    mom = await createUser(s, admin, "mom");
    dad = await createUser(s, admin, "dad");
    kid1 = await createUser(s, admin, "kid1");
    kid2 = await createUser(s, admin, "kid2");
    for (const [name, members] of [
      ["parents", [mom, dad]],
      ["kids", [kid1, kid2]],
    ] as const) {
      const g = await api(admin, "POST", "/api/v1/groups", { name });
      expect(g.status).toBe(201);
      ids[name] = g.body.id;
      for (const m of members) {
        expect(
          (await api(admin, "POST", `/api/v1/groups/${g.body.id}/members`, { user_id: m.userId })).status,
        ).toBe(201);
      }
    }
    // The top: everyone reads, parents write.
    expect(
      (await grant(admin, null, [{ subject_type: "everyone", level: "read" }, group(ids.parents!, "write")]))
        .status,
    ).toBe(200);
    for (const name of ["Movies", "Photos", "Tax"]) ids[name] = (await mkdir(s, admin, name)).id;
    ids.Private = (await mkdir(s, admin, "Private", ids.Photos)).id;
    ids.KidsArt = (await mkdir(s, admin, "Kids Art", ids.Photos)).id;
    expect((await grant(admin, ids.Movies!, [{ subject_type: "everyone", level: "read" }])).status).toBe(200);
    expect(
      (await grant(admin, ids.Photos!, [group(ids.parents!, "write"), group(ids.kids!, "read")])).status,
    ).toBe(200);
    expect((await grant(admin, ids.Tax!, [group(ids.parents!, "manage")])).status).toBe(200);
    // Narrowed: parents only. Widened: kids write.
    expect((await grant(admin, ids.Private!, [group(ids.parents!, "write")])).status).toBe(200);
    expect(
      (await grant(admin, ids.KidsArt!, [group(ids.parents!, "write"), group(ids.kids!, "write")])).status,
    ).toBe(200);
    const put = async (name: string, parent: string, content = name) => {
      const r = await upload(s, admin, name, content, { parentId: parent });
      expect(r.status).toBe(201);
      ids[name] = r.body.id;
    };
    await put("film.mp4", ids.Movies!);
    await put("beach.jpg", ids.Photos!);
    await put("secret-beach.jpg", ids.Private!);
    await put("tax-notes.txt", ids.Tax!, "the family's tax notes");
  });
  afterAll(async () => {
    await s.close();
    rmSync(host, { recursive: true, force: true });
  });

  it("shows each member only what they may read, in listings, counts and trees", async () => {
    expect(await names(kid1.token)).toEqual(["Movies", "Photos"]);
    expect(await names(mom.token)).toEqual(["Movies", "Photos", "Tax"]);
    expect(await names(admin)).toEqual(["Movies", "Photos", "Tax"]);
    expect(await names(kid1.token, ids.Photos)).toEqual(["Kids Art", "beach.jpg"]);
    expect(await names(dad.token, ids.Photos)).toEqual(["Kids Art", "Private", "beach.jpg"]);
    const dirs = await api(kid1.token, "GET", "/api/v1/directories");
    const photos = (dirs.body.directories as { file: { id: string }; child_count: number }[]).find(
      (d) => d.file.id === ids.Photos,
    );
    expect(photos?.child_count).toBe(2);
    const tree = await api(kid1.token, "GET", `/api/v1/directories/${ids.Photos}/tree`);
    expect(tree.status).toBe(200);
    expect(
      tree.body.children.map((c: { directory: { file: { name: string } } }) => c.directory.file.name),
    ).toEqual(["Kids Art"]);
  });

  it("answers 404 for what a member may not read, on every path to it", async () => {
    for (const path of [
      `/api/v1/files/${ids["tax-notes.txt"]}`,
      `/api/v1/files/${ids["tax-notes.txt"]}/download`,
      `/api/v1/files/${ids["tax-notes.txt"]}/content`,
      `/api/v1/directories/${ids.Tax}`,
      `/api/v1/directories/${ids.Tax}/children`,
      `/api/v1/directories/${ids.Private}/tree`,
      `/api/v1/files/${ids["secret-beach.jpg"]}/thumbnail`,
      `/api/v1/files?parent_id=${ids.Tax}`,
      `/api/v1/grants?directory_id=${ids.Tax}`,
      `/api/v1/files/${ids["tax-notes.txt"]}/tags`,
    ]) {
      const r = await api(kid1.token, "GET", path);
      expect([path, r.status]).toEqual([path, 404]);
    }
    expect(await status(kid1.token, "POST", `/api/v1/files/${ids["tax-notes.txt"]}/stream-token`)).toBe(404);
    expect(
      await status(kid1.token, "PUT", `/api/v1/playback-positions/${ids["tax-notes.txt"]}`, {
        position_seconds: 1,
        duration_seconds: 10,
      }),
    ).toBe(404);
    expect(await searchTotal(kid1.token, "tax")).toBe(0);
    expect(await searchTotal(kid1.token, "beach")).toBe(1);
    expect(await searchTotal(mom.token, "beach")).toBe(2);
    expect(await searchTotal(mom.token, "tax")).toBe(2);
    // Counts and pages agree: the browse-everything search counts only readable rows.
    const all = await api(kid1.token, "GET", "/api/v1/search?q=&limit=100");
    expect(all.body.total).toBe(all.body.files.length);
    expect(all.body.files.map((f: { name: string }) => f.name)).not.toContain("Tax");
    const content = await api(mom.token, "GET", `/api/v1/files/${ids["tax-notes.txt"]}/content`);
    expect(content.body.content).toBe("the family's tax notes");
  });

  it("lets read be read: no upload, rename, move, tag or delete without write", async () => {
    expect((await upload(s, kid1.token, "k.jpg", "k", { parentId: ids.Photos })).status).toBe(403);
    expect((await upload(s, kid1.token, "top.txt", "t")).status).toBe(403);
    expect(await status(kid1.token, "PATCH", `/api/v1/files/${ids["beach.jpg"]}`, { name: "x.jpg" })).toBe(
      403,
    );
    expect(await status(kid1.token, "DELETE", `/api/v1/files/${ids["beach.jpg"]}`)).toBe(403);
    expect(await status(kid1.token, "DELETE", `/api/v1/directories/${ids.Photos}?recursive=true`)).toBe(403);
    expect(
      await status(kid1.token, "POST", "/api/v1/directories", { name: "New", parent_id: ids.Movies }),
    ).toBe(403);
    const tag = await api(admin, "POST", "/api/v1/tags", { name: "fav" });
    expect(
      await status(kid1.token, "POST", `/api/v1/files/${ids["film.mp4"]}/tags`, { tag_id: tag.body.id }),
    ).toBe(403);
    // The widened subfolder takes uploads from kids.
    const art = await upload(s, kid2.token, "drawing.png", "d", { parentId: ids.KidsArt });
    expect(art.status).toBe(201);
    // Parents write in Photos but cannot delete a folder holding what they may not change... they may.
    expect((await upload(s, mom.token, "mom.jpg", "m", { parentId: ids.Photos })).status).toBe(201);
    // Mom manages Tax, so she may change its grants; kids may not change Photos'.
    expect((await grant(kid1.token, ids.Photos!, [])).status).toBe(403);
    expect((await grant(mom.token, ids.Tax!, [group(ids.parents!, "manage")])).status).toBe(200);
    expect((await grant(mom.token, ids.Photos!, [])).status).toBe(403);
  });

  it("keeps copies and moves within what both ends allow", async () => {
    const home = (await api(kid1.token, "GET", "/api/v1/auth/profile")).body.home_directory_id as string;
    expect(home).toBeTruthy();
    // Read to copy out; write to copy in.
    expect(
      await status(kid1.token, "POST", `/api/v1/files/${ids["tax-notes.txt"]}/copy`, {
        destination_parent_id: home,
      }),
    ).toBe(404);
    expect(
      await status(kid1.token, "POST", `/api/v1/files/${ids["film.mp4"]}/copy`, {
        destination_parent_id: ids.Photos,
      }),
    ).toBe(403);
    const copied = await api(kid1.token, "POST", `/api/v1/files/${ids["film.mp4"]}/copy`, {
      destination_parent_id: home,
    });
    expect(copied.status).toBe(201);
    // The copy takes its new place's grants: private to kid1.
    expect(await status(kid2.token, "GET", `/api/v1/files/${copied.body.id}`)).toBe(404);
    expect(await status(admin, "GET", `/api/v1/files/${copied.body.id}`)).toBe(404);
    // Moving out of a folder needs write there.
    expect(
      await status(kid1.token, "POST", `/api/v1/files/${ids["film.mp4"]}/move`, { new_parent_id: home }),
    ).toBe(403);
    // A copy of Photos as a whole carries only what the copier may read.
    const photosCopy = await api(kid1.token, "POST", `/api/v1/files/${ids.Photos}/copy`, {
      destination_parent_id: home,
    });
    expect(photosCopy.status).toBe(201);
    expect(await names(kid1.token, photosCopy.body.id)).toEqual(["Kids Art", "beach.jpg", "mom.jpg"]);
  });

  it("keeps a personal folder private to its owner until they share it", async () => {
    const home1 = (await api(kid1.token, "GET", "/api/v1/auth/profile")).body.home_directory_id as string;
    const home2 = (await api(kid2.token, "GET", "/api/v1/auth/profile")).body.home_directory_id as string;
    expect(home1).not.toBe(home2);
    const diary = await upload(s, kid1.token, "diary.txt", "dear diary", { parentId: home1 });
    expect(diary.status).toBe(201);
    for (const token of [kid2.token, mom.token, admin]) {
      expect(await status(token, "GET", `/api/v1/files/${diary.body.id}`)).toBe(404);
      expect(await status(token, "GET", `/api/v1/directories/${home1}/children`)).toBe(404);
      expect(await searchTotal(token, "diary")).toBe(0);
      expect((await upload(s, token, "x.txt", "x", { parentId: home1 })).status).toBe(404);
      expect(await status(token, "DELETE", `/api/v1/files/${diary.body.id}`)).toBe(404);
    }
    // Personal folders are not listed at the top, and stay put.
    expect(await names(kid1.token)).toEqual(["Movies", "Photos"]);
    expect(await status(kid1.token, "PATCH", `/api/v1/files/${home1}`, { name: "renamed" })).toBe(403);
    expect(await status(kid1.token, "DELETE", `/api/v1/directories/${home1}?recursive=true`)).toBe(403);
    // kid1 shares a subfolder with mom, read only.
    const shared = await mkdir(s, kid1.token, "For Mom", home1);
    await upload(s, kid1.token, "card.txt", "for mom", { parentId: shared.id });
    expect(
      (await grant(kid1.token, shared.id, [{ subject_type: "user", subject_id: mom.userId, level: "read" }]))
        .status,
    ).toBe(200);
    expect(await names(mom.token, shared.id)).toEqual(["card.txt"]);
    expect(await searchTotal(mom.token, "card")).toBe(1);
    expect((await upload(s, mom.token, "reply.txt", "r", { parentId: shared.id })).status).toBe(403);
    expect(await status(admin, "GET", `/api/v1/directories/${shared.id}`)).toBe(404);
    const g = await api(mom.token, "GET", `/api/v1/grants?directory_id=${shared.id}`);
    expect(g.body).toMatchObject({ own: true, personal: true, owner_id: kid1.userId, your_level: "read" });
    // The owner still manages it, and can take it back.
    expect((await api(kid1.token, "DELETE", `/api/v1/grants?directory_id=${shared.id}`)).status).toBe(200);
    expect(await status(mom.token, "GET", `/api/v1/directories/${shared.id}`)).toBe(404);
  });

  it("follows a move: inherited grants come from the new place", async () => {
    const box = await mkdir(s, admin, "Box", ids.Movies);
    const inBox = await upload(s, admin, "box-film.mp4", "b", { parentId: box.id });
    expect(await status(kid1.token, "GET", `/api/v1/files/${inBox.body.id}`)).toBe(200);
    expect(
      await status(admin, "POST", `/api/v1/directories/${box.id}/move`, { new_parent_id: ids.Tax }),
    ).toBe(200);
    expect(await status(kid1.token, "GET", `/api/v1/files/${inBox.body.id}`)).toBe(404);
    expect(await status(dad.token, "GET", `/api/v1/files/${inBox.body.id}`)).toBe(200);
    expect(await searchTotal(kid1.token, "box-film")).toBe(0);
  });

  it("ends stream tokens and continue-watching when the right is gone", async () => {
    const film = await upload(s, admin, "tax-film.mp4", "v".repeat(1000), {
      parentId: ids.Tax,
      type: "video/mp4",
    });
    const st = await api(dad.token, "POST", `/api/v1/files/${film.body.id}/stream-token`);
    expect(st.status).toBe(200);
    const url = `/api/v1/files/${film.body.id}/stream?st=${encodeURIComponent(st.body.token)}`;
    expect((await fetch(s.url + url)).status).toBe(200);
    expect(
      await status(dad.token, "PUT", `/api/v1/playback-positions/${film.body.id}`, {
        position_seconds: 5,
        duration_seconds: 100,
      }),
    ).toBe(200);
    const before = await api(dad.token, "GET", "/api/v1/playback-positions");
    expect(before.body.items.map((i: { file_id: string }) => i.file_id)).toContain(film.body.id);
    expect(
      (await grant(admin, ids.Tax!, [{ subject_type: "user", subject_id: mom.userId, level: "manage" }]))
        .status,
    ).toBe(200);
    expect((await fetch(s.url + url)).status).toBe(404);
    const after = await api(dad.token, "GET", "/api/v1/playback-positions");
    expect(after.body.items.map((i: { file_id: string }) => i.file_id)).not.toContain(film.body.id);
    await grant(admin, ids.Tax!, [group(ids.parents!, "manage")]);
  });

  it("shows the trash by the same rules", async () => {
    const mine = await upload(s, mom.token, "mom-old.jpg", "o", { parentId: ids.Photos });
    expect(await status(mom.token, "DELETE", `/api/v1/files/${mine.body.id}`)).toBe(200);
    const trashOf = async (token: string) =>
      ((await api(token, "GET", "/api/v1/trash")).body.files as { id: string }[]).map((f) => f.id);
    expect(await trashOf(mom.token)).toContain(mine.body.id);
    expect(await trashOf(kid1.token)).not.toContain(mine.body.id);
    expect(await trashOf(admin)).toContain(mine.body.id);
    expect(await status(kid1.token, "POST", `/api/v1/trash/${mine.body.id}/restore`)).toBe(403);
    expect(await status(kid2.token, "DELETE", `/api/v1/trash/${mine.body.id}`)).toBe(403);
    // In a personal folder the trash is the owner's alone.
    const home = (await api(kid2.token, "GET", "/api/v1/auth/profile")).body.home_directory_id;
    const note = await upload(s, kid2.token, "note.txt", "n", { parentId: home });
    expect(await status(kid2.token, "DELETE", `/api/v1/files/${note.body.id}`)).toBe(200);
    expect(await trashOf(admin)).not.toContain(note.body.id);
    expect(await status(admin, "POST", `/api/v1/trash/${note.body.id}/restore`)).toBe(404);
    expect(await status(kid2.token, "POST", `/api/v1/trash/${note.body.id}/restore`)).toBe(200);
  });

  it("mounts a watched folder with its grants, down to every scanned file", async () => {
    const r = await api(admin, "POST", "/api/v1/watched-folders", {
      name: "Scans",
      path: `${host}/Scans`,
      parent_id: ids.Tax,
      grants: [group(ids.parents!, "read")],
    });
    expect(r.status).toBe(201);
    const dirId = r.body.directory_id as string;
    await waitFor(
      () => searchTotal(dad.token, "loan"),
      (n) => n === 1,
    );
    expect(await searchTotal(kid1.token, "loan")).toBe(0);
    expect(await searchTotal(dad.token, "bank-statement")).toBe(1);
    const files = await api(kid1.token, "GET", `/api/v1/watched-folders/${r.body.id}/files`);
    expect(files.body.total ?? 0).toBe(0);
    expect(await status(kid1.token, "GET", `/api/v1/directories/${dirId}`)).toBe(404);
    // The folder itself, its name, host path and counts, is as hidden as its directory.
    const listed = await api(kid1.token, "GET", "/api/v1/watched-folders");
    expect(listed.status).toBe(200);
    expect(listed.text).not.toContain("Scans");
    expect(await status(kid1.token, "GET", `/api/v1/watched-folders/${r.body.id}`)).toBe(404);
    expect(files.status).toBe(404);
    const forDad = await api(dad.token, "GET", "/api/v1/watched-folders");
    expect(forDad.body.folders.map((f: { id: string }) => f.id)).toContain(r.body.id);
    expect(await status(dad.token, "GET", `/api/v1/watched-folders/${r.body.id}`)).toBe(200);
    const g = await api(dad.token, "GET", `/api/v1/grants?directory_id=${dirId}`);
    expect(g.body).toMatchObject({ own: true, your_level: "read" });
  });

  it("refuses grants to subjects of another organization or malformed ones", async () => {
    expect(
      (await grant(admin, ids.Movies!, [{ subject_type: "user", subject_id: "nope", level: "read" }])).status,
    ).toBe(400);
    expect(
      (
        await grant(admin, ids.Movies!, [
          { subject_type: "user", subject_id: "0190a0b0-0000-7000-8000-000000000000", level: "read" },
        ])
      ).status,
    ).toBe(400);
    expect((await grant(admin, ids.Movies!, [{ subject_type: "everyone", level: "owner" }])).status).toBe(
      400,
    );
    const subjects = await api(kid1.token, "GET", "/api/v1/grants/subjects");
    expect(subjects.body.subjects.map((x: { subject_name: string }) => x.subject_name)).toEqual(
      expect.arrayContaining(["Everyone", "mom", "kids", "parents"]),
    );
  });

  it("refuses to delete a folder holding something deeper the member may not change, and deletes nothing", async () => {
    const drawings = await mkdir(s, kid1.token, "Drawings", ids.KidsArt);
    const framed = await mkdir(s, admin, "Framed", drawings.id);
    expect(
      (await grant(admin, framed.id, [group(ids.parents!, "write"), group(ids.kids!, "read")])).status,
    ).toBe(200);
    const inFramed = await upload(s, admin, "framed.jpg", "f", { parentId: framed.id });
    expect(await status(kid1.token, "DELETE", `/api/v1/directories/${drawings.id}?recursive=true`)).toBe(403);
    for (const id of [drawings.id, framed.id, inFramed.body.id]) {
      expect(await status(kid1.token, "GET", `/api/v1/files/${id}`)).toBe(200);
    }
    // A parent may: the whole folder goes, down to the file.
    expect(await status(dad.token, "DELETE", `/api/v1/directories/${drawings.id}?recursive=true`)).toBe(200);
    expect(await status(dad.token, "GET", `/api/v1/files/${inFramed.body.id}`)).toBe(404);
  });

  it("answers a name taken by a folder the member may not read without that folder's id", async () => {
    const surprise = await mkdir(s, admin, "Surprise", ids.KidsArt);
    expect((await grant(admin, surprise.id, [group(ids.parents!, "write")])).status).toBe(200);
    const mine = await upload(s, kid1.token, "mine.png", "m", { parentId: ids.KidsArt });
    expect(mine.status).toBe(201);
    for (const [what, r] of [
      [
        "mkdir",
        await api(kid1.token, "POST", "/api/v1/directories", { name: "Surprise", parent_id: ids.KidsArt }),
      ],
      ["rename", await api(kid1.token, "PATCH", `/api/v1/files/${mine.body.id}`, { name: "Surprise" })],
      ["upload", await upload(s, kid1.token, "Surprise", "x", { parentId: ids.KidsArt })],
    ] as const) {
      expect([what, r.status]).toEqual([what, 409]);
      expect([what, r.text]).not.toEqual([what, expect.stringContaining(surprise.id)]);
    }
    // A parent, who reads it, is told which item holds the name.
    const dads = await api(dad.token, "POST", "/api/v1/directories", {
      name: "Surprise",
      parent_id: ids.KidsArt,
    });
    expect([dads.status, dads.body.error.details?.existing_id]).toEqual([409, surprise.id]);
  });

  it("refuses to move a folder holding something the member may not change, into their personal folder or elsewhere", async () => {
    const home = (await api(kid1.token, "GET", "/api/v1/auth/profile")).body.home_directory_id as string;
    const box = await mkdir(s, kid1.token, "Toy box", ids.KidsArt);
    const hidden = await mkdir(s, admin, "Presents", box.id);
    expect((await grant(admin, hidden.id, [group(ids.parents!, "write")])).status).toBe(200);
    const present = await upload(s, dad.token, "present-list.txt", "a bike", { parentId: hidden.id });
    expect(present.status).toBe(201);
    // Moved into kid1's personal folder, kid1 would manage all of it, the parents' list included.
    for (const [route, body] of [
      [`/api/v1/directories/${box.id}/move`, { new_parent_id: home }],
      [`/api/v1/files/${box.id}/move`, { new_parent_id: home }],
      [`/api/v1/files/${box.id}/move`, { new_parent_id: ids.Movies }],
    ] as const) {
      expect([route, await status(kid1.token, "POST", route, body)]).toEqual([route, 403]);
    }
    expect(await status(kid1.token, "GET", `/api/v1/files/${present.body.id}`)).toBe(404);
    expect(await status(dad.token, "GET", `/api/v1/files/${present.body.id}`)).toBe(200);
    expect((await api(dad.token, "GET", `/api/v1/files/${box.id}`)).body.parent_id).toBe(ids.KidsArt);
    // What is in the trash counts too: moved, kid1 would manage it, restore it and read it.
    const attic = await mkdir(s, kid1.token, "Attic box", ids.KidsArt);
    const old = await mkdir(s, admin, "Old presents", attic.id);
    expect((await grant(admin, old.id, [group(ids.parents!, "write")])).status).toBe(200);
    const oldList = await upload(s, dad.token, "old-list.txt", "a kite", { parentId: old.id });
    expect(await status(dad.token, "DELETE", `/api/v1/directories/${old.id}?recursive=true`)).toBe(200);
    expect(await status(kid1.token, "POST", `/api/v1/files/${attic.id}/move`, { new_parent_id: home })).toBe(
      403,
    );
    expect(await status(kid1.token, "POST", `/api/v1/trash/${old.id}/restore`)).toBe(404);
    expect(await status(kid1.token, "GET", `/api/v1/files/${oldList.body.id}`)).toBe(404);
    // A rename moves nothing: still allowed. A folder with nothing hidden moves.
    expect(await status(kid1.token, "PATCH", `/api/v1/files/${box.id}`, { name: "Toys" })).toBe(200);
    const plain = await mkdir(s, kid1.token, "Plain box", ids.KidsArt);
    await upload(s, kid1.token, "doodle.png", "d", { parentId: plain.id });
    expect(await status(kid1.token, "POST", `/api/v1/files/${plain.id}/move`, { new_parent_id: home })).toBe(
      200,
    );
  });

  it("refuses to move a folder out of one the member may not write, though its own list lets them write it", async () => {
    const home = (await api(kid1.token, "GET", "/api/v1/auth/profile")).body.home_directory_id as string;
    // Kids Art lets kids write; Photos, where it is, lets them read.
    expect(
      await status(kid1.token, "POST", `/api/v1/files/${ids.KidsArt}/move`, { new_parent_id: home }),
    ).toBe(403);
    expect((await api(dad.token, "GET", `/api/v1/files/${ids.KidsArt}`)).body.parent_id).toBe(ids.Photos);
    // A subfolder of kid2's personal folder, shared with kid1 to write in, stays kid2's.
    const home2 = (await api(kid2.token, "GET", "/api/v1/auth/profile")).body.home_directory_id as string;
    const lent = await mkdir(s, kid2.token, "For kid1", home2);
    expect(
      (await grant(kid2.token, lent.id, [{ subject_type: "user", subject_id: kid1.userId, level: "write" }]))
        .status,
    ).toBe(200);
    expect((await upload(s, kid1.token, "hello.txt", "hi", { parentId: lent.id })).status).toBe(201);
    expect(await status(kid1.token, "POST", `/api/v1/files/${lent.id}/move`, { new_parent_id: home })).toBe(
      403,
    );
    expect(await status(kid2.token, "GET", `/api/v1/files/${lent.id}`)).toBe(200);
  });
});

/**
 * Search leaves out the grants' condition for a viewer who reads every
 * list (search.service.ts aclOf); one who reads every list but the top's
 * still has it.
 */
describe("search for a viewer who reads every list but the top's", () => {
  let s: TestServer;
  afterAll(() => s.close());

  it("finds what the other lists give, and nothing the top's list keeps from them", async () => {
    s = await startServer();
    const admin = await s.login();
    const guest = await createUser(s, admin, "guest");
    const grant = (directory_id: string | null, grants: unknown[]) =>
      s.api("PUT", "/api/v1/grants", { token: admin, body: { directory_id, grants } });
    const shared = await mkdir(s, admin, "Shared");
    expect((await grant(shared.id, [{ subject_type: "everyone", level: "read" }])).status).toBe(200);
    expect((await upload(s, admin, "notes.txt", "n")).status).toBe(201);
    expect((await upload(s, admin, "shared-notes.txt", "n", { parentId: shared.id })).status).toBe(201);
    const found = async (token: string) => {
      const r = await s.api("GET", "/api/v1/search?q=notes", { token });
      expect(r.status).toBe(200);
      return [r.body.total, (r.body.files as { name: string }[]).map((f) => f.name).sort()];
    };
    // Before: the top reads for everyone (no list of its own), so the guest reads every list.
    expect(await found(guest.token)).toEqual([2, ["notes.txt", "shared-notes.txt"]]);
    expect((await grant(null, [])).status).toBe(200);
    expect(await found(guest.token)).toEqual([1, ["shared-notes.txt"]]);
    expect(await found(admin)).toEqual([2, ["notes.txt", "shared-notes.txt"]]);
  });
});
