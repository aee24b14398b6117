import { rmSync } from "node:fs";
import { Code, ConnectError } from "@connectrpc/connect";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FileService } from "../../src/gen/attic/v1/file_pb.ts";
import { hostTree } from "../api/watched.helpers.ts";
import { createUser, type Session } from "../helpers/accounts.ts";
import { mkdir, upload } from "../helpers/files.ts";
import { startServer, type TestServer } from "../helpers/server.ts";
import { connectJson, rpcClient } from "./clients.ts";

/** Folder grants hold over RPC exactly as over REST (issue 19): same service layer, same 404s. */
describe("folder grants over RPC", () => {
  let s: TestServer;
  let admin: string;
  let mom: Session;
  let kid: Session;
  let parents: string;
  let tax: string;
  let movies: string;
  let notes: string;
  const rpc = (procedure: string, body: unknown, token: string) => connectJson(s.url, procedure, body, token);

  beforeAll(async () => {
    s = await startServer();
    admin = await s.login();
    mom = await createUser(s, admin, "rpcmom");
    kid = await createUser(s, admin, "rpckid");
    const g = await s.api("POST", "/api/v1/groups", { token: admin, body: { name: "parents" } });
    parents = g.body.id;
    await s.api("POST", `/api/v1/groups/${parents}/members`, { token: admin, body: { user_id: mom.userId } });
    tax = (await mkdir(s, admin, "Tax")).id;
    movies = (await mkdir(s, admin, "Movies")).id;
    notes = (await upload(s, admin, "tax-notes.txt", "private numbers", { parentId: tax })).body.id;
    await upload(s, admin, "film.txt", "a film", { parentId: movies });
  });
  afterAll(() => s.close());

  it("sets, reads and clears grants through GrantService", async () => {
    const set = await rpc(
      "attic.v1.GrantService/SetGrants",
      { directory_id: tax, grants: [{ subject_type: "group", subject_id: parents, level: "manage" }] },
      admin,
    );
    expect(set.status).toBe(200);
    expect(set.body.grants).toMatchObject({ own: true, your_level: "manage", personal: false });
    expect(set.body.grants.grants[0]).toMatchObject({ subject_name: "parents", level: "manage" });
    const asMom = await rpc("attic.v1.GrantService/GetGrants", { directory_id: tax }, mom.token);
    expect(asMom.body.grants.your_level).toBe("manage");
    const asKid = await rpc("attic.v1.GrantService/GetGrants", { directory_id: tax }, kid.token);
    expect([asKid.status, asKid.body.code]).toEqual([404, "not_found"]);
    const denied = await rpc(
      "attic.v1.GrantService/SetGrants",
      { directory_id: movies, grants: [] },
      kid.token,
    );
    expect([denied.status, denied.body.code]).toEqual([403, "permission_denied"]);
  });

  it("hides what a member may not read from get, list, search and download", async () => {
    const get = await rpc("attic.v1.FileService/GetFile", { id: notes }, kid.token);
    expect([get.status, get.body.code]).toEqual([404, "not_found"]);
    expect((await rpc("attic.v1.FileService/GetFile", { id: notes }, mom.token)).status).toBe(200);
    const top = await rpc("attic.v1.FileService/ListFiles", {}, kid.token);
    expect(top.body.files.map((f: { name: string }) => f.name)).toEqual(["Movies"]);
    const children = await rpc("attic.v1.DirectoryService/ListChildren", { id: tax }, kid.token);
    expect(children.status).toBe(404);
    const search = await rpc("attic.v1.SearchService/Search", { query: { query: "tax" } }, kid.token);
    expect(search.status).toBe(200);
    expect(Number(search.body.result.total)).toBe(0);
    const momSearch = await rpc("attic.v1.SearchService/Search", { query: { query: "tax" } }, mom.token);
    expect(Number(momSearch.body.result.total)).toBe(2);
    const save = await rpc(
      "attic.v1.PlaybackPositionService/SavePlaybackPosition",
      { file_id: notes, position_seconds: 1, duration_seconds: 2 },
      kid.token,
    );
    expect(save.status).toBe(404);
    const client = rpcClient(s.url, FileService, kid.token);
    const err = await (async () => {
      for await (const _ of client.downloadFile({ id: notes })) {
        /* drain */
      }
    })().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ConnectError);
    expect((err as ConnectError).code).toBe(Code.NotFound);
  });

  it("gives each caller a personal folder nobody else reaches", async () => {
    const home = await rpc("attic.v1.GrantService/GetHomeDirectory", {}, kid.token);
    expect(home.status).toBe(200);
    const profile = await s.api("GET", "/api/v1/auth/profile", { token: kid.token });
    expect(home.body.directory_id).toBe(profile.body.home_directory_id);
    const diary = await upload(s, kid.token, "diary.txt", "mine", { parentId: home.body.directory_id });
    expect(diary.status).toBe(201);
    for (const token of [admin, mom.token]) {
      expect((await rpc("attic.v1.FileService/GetFile", { id: diary.body.id }, token)).status).toBe(404);
      expect(
        (await rpc("attic.v1.DirectoryService/GetTree", { id: home.body.directory_id }, token)).status,
      ).toBe(404);
    }
    expect((await rpc("attic.v1.FileService/GetFile", { id: diary.body.id }, kid.token)).status).toBe(200);
  });

  it("hides a watched folder mounted where a member may not read, through WatchedFolderService", async () => {
    const host = hostTree({ "statement.pdf": "bank" });
    try {
      const w = await s.api("POST", "/api/v1/watched-folders", {
        token: admin,
        body: { name: "Bank scans", path: host, parent_id: tax, grants: [] },
      });
      expect(w.status).toBe(201);
      const listed = await rpc("attic.v1.WatchedFolderService/ListWatchedFolders", {}, kid.token);
      expect(listed.status).toBe(200);
      expect(JSON.stringify(listed.body)).not.toContain("Bank scans");
      for (const method of ["GetWatchedFolder", "ListWatchedFolderFiles"]) {
        const r = await rpc(`attic.v1.WatchedFolderService/${method}`, { id: w.body.id }, kid.token);
        expect([method, r.status, r.body.code]).toEqual([method, 404, "not_found"]);
      }
      const forAdmin = await rpc("attic.v1.WatchedFolderService/GetWatchedFolder", { id: w.body.id }, admin);
      expect(forAdmin.status).toBe(200);
    } finally {
      rmSync(host, { recursive: true, force: true });
    }
  });
});
