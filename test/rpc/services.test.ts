import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Code, ConnectError } from "@connectrpc/connect";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FileService } from "../../src/gen/attic/v1/file_pb.ts";
import { FilesystemService } from "../../src/gen/attic/v1/filesystem_pb.ts";
import { GroupService } from "../../src/gen/attic/v1/group_pb.ts";
import { PlaybackPositionService } from "../../src/gen/attic/v1/playback_position_pb.ts";
import { SearchService } from "../../src/gen/attic/v1/search_pb.ts";
import { WatchedFolderService } from "../../src/gen/attic/v1/watched_folder_pb.ts";
import { startServer, type TestServer } from "../helpers/server.ts";
import { connectJson, rpcClient } from "./clients.ts";

const codeOf = (p: Promise<unknown>) =>
  p.then(
    () => "ok",
    (e) => Code[ConnectError.from(e).code],
  );

async function upload(s: TestServer, token: string, name: string, text: string): Promise<string> {
  const files = rpcClient(s.url, FileService, token);
  async function* stream() {
    yield { data: { case: "metadata" as const, value: { name } } };
    yield { data: { case: "chunk" as const, value: Buffer.from(text) } };
  }
  const { file } = await files.uploadFile(stream());
  return file!.id;
}

describe("the other RPC services", () => {
  let s: TestServer;
  let token: string;
  let host: string;
  beforeAll(async () => {
    s = await startServer();
    token = await s.login();
    host = mkdtempSync(join(tmpdir(), "attic-rpc-host-"));
  });
  afterAll(async () => {
    await s.close();
    rmSync(host, { recursive: true, force: true });
  });

  it("SearchService: Search answers a page, SearchStream one File per message", async () => {
    for (const n of ["report-2024.txt", "report-2025.txt", "notes.txt"]) await upload(s, token, n, n);
    const search = rpcClient(s.url, SearchService, token);
    const { result } = await search.search({ query: { query: "report", limit: 10, sortBy: "name" } });
    expect(result?.files.map((f) => f.name)).toEqual(["report-2024.txt", "report-2025.txt"]);
    expect(result?.total).toBe(2n);
    expect(result?.page).toBe(1);
    const streamed: string[] = [];
    for await (const m of search.searchStream({
      query: { query: "report", sortBy: "name", sortOrder: "desc" },
    })) {
      streamed.push(m.file!.name);
    }
    expect(streamed).toEqual(["report-2025.txt", "report-2024.txt"]);
    expect(await codeOf(search.search({ query: { sortBy: "color" } }))).toBe("InvalidArgument");
  });

  it("PlaybackPositionService: saves and reads the caller's position", async () => {
    const id = await upload(s, token, "movie.mp4", "not really a movie");
    const playback = rpcClient(s.url, PlaybackPositionService, token);
    expect(await codeOf(playback.getPlaybackPosition({ fileId: id }))).toBe("NotFound");
    const saved = await playback.savePlaybackPosition({
      fileId: id,
      positionSeconds: 42.5,
      durationSeconds: 100,
    });
    expect(saved.success).toBe(true);
    const got = await playback.getPlaybackPosition({ fileId: id });
    expect(got).toMatchObject({ fileId: id, positionSeconds: 42.5, durationSeconds: 100 });
    expect(got.lastUpdated).toMatch(/^\d{4}-\d\d-\d\dT/);
    expect(await codeOf(playback.getPlaybackPosition({ fileId: "" }))).toBe("InvalidArgument");
    expect(
      await codeOf(playback.savePlaybackPosition({ fileId: id, positionSeconds: 200, durationSeconds: 100 })),
    ).toBe("InvalidArgument");
  });

  it("FilesystemService: suggests directories and refuses system paths like REST", async () => {
    mkdirSync(join(host, "music"));
    mkdirSync(join(host, "movies"));
    writeFileSync(join(host, "mfile"), "x");
    const fs = rpcClient(s.url, FilesystemService, token);
    const { suggestions } = await fs.getPathSuggestions({ prefix: `${host}/m` });
    expect(suggestions).toEqual([`${host}/movies`, `${host}/music`]);
    expect(await codeOf(fs.getPathSuggestions({ prefix: "/etc/" }))).toBe("PermissionDenied");
    expect(await codeOf(fs.getPathSuggestions({ prefix: `${host}/../` }))).toBe("InvalidArgument");
    expect(await codeOf(fs.getPathSuggestions({ prefix: `${host}/m`, limit: 51 }))).toBe("InvalidArgument");
    const rest = await s.api("GET", `/api/v1/filesystem/path-suggestions?prefix=/etc/`, { token });
    const rpc = await connectJson(
      s.url,
      "attic.v1.FilesystemService/GetPathSuggestions",
      { prefix: "/etc/" },
      token,
    );
    expect(rpc.status).toBe(rest.status);
    expect(rpc.headers.get("attic-error-code")).toBe(rest.body.error.code);
  });

  it("GroupService: create, update, members, list, delete", async () => {
    const groups = rpcClient(s.url, GroupService, token);
    const me = (await s.api("GET", "/api/v1/auth/profile", { token })).body;
    const userId = (me.user?.id ?? me.id) as string;
    const { group } = await groups.createGroup({ name: "family", description: "us" });
    expect(group).toMatchObject({ name: "family", description: "us", memberCount: 0n });
    const updated = await groups.updateGroup({ id: group!.id, name: "household" });
    expect(updated.group?.name).toBe("household");
    expect((await groups.addGroupMember({ groupId: group!.id, userId })).success).toBe(true);
    const { members } = await groups.listGroupMembers({ groupId: group!.id });
    expect(members.map((m) => m.userId)).toEqual([userId]);
    expect((await groups.getGroup({ id: group!.id })).group?.memberCount).toBe(1n);
    await groups.removeGroupMember({ groupId: group!.id, userId });
    expect((await groups.listGroups({})).groups.map((g) => g.name)).toContain("household");
    expect((await groups.deleteGroup({ id: group!.id })).success).toBe(true);
    expect(await codeOf(groups.getGroup({ id: group!.id }))).toBe("NotFound");
  });

  it("WatchedFolderService: mounts a host folder, scans it and lists its files", async () => {
    const dir = join(host, "library");
    mkdirSync(dir);
    writeFileSync(join(dir, "song.mp3"), "la la la");
    const watched = rpcClient(s.url, WatchedFolderService, token);
    const { watchedFolder } = await watched.createWatchedFolder({ name: "Library", path: dir });
    expect(watchedFolder).toMatchObject({ name: "Library", directoryId: expect.any(String) });
    await watched.scanWatchedFolder({ id: watchedFolder!.id });
    let names: string[] = [];
    for (let i = 0; i < 100 && !names.includes("song.mp3"); i++) {
      names = (await watched.listWatchedFolderFiles({ id: watchedFolder!.id })).files.map((f) => f.name);
      if (!names.includes("song.mp3")) await new Promise((r) => setTimeout(r, 100));
    }
    expect(names).toContain("song.mp3");
    expect((await watched.listWatchedFolders({})).watchedFolders.map((w) => w.id)).toContain(
      watchedFolder!.id,
    );
    const renamed = await watched.updateWatchedFolder({ id: watchedFolder!.id, name: "Songs" });
    expect(renamed.watchedFolder?.name).toBe("Songs");
    // A new host path over RPC as over REST: the index follows it; a full scan is accepted.
    const moved = join(host, "library2");
    mkdirSync(moved);
    writeFileSync(join(moved, "tune.flac"), "fLaC");
    const repointed = await watched.updateWatchedFolder({ id: watchedFolder!.id, path: moved });
    expect(repointed.watchedFolder?.path).toBe(moved);
    await watched.scanWatchedFolder({ id: watchedFolder!.id, full: true });
    for (let i = 0; i < 100 && !names.includes("tune.flac"); i++) {
      names = (await watched.listWatchedFolderFiles({ id: watchedFolder!.id })).files.map((f) => f.name);
      if (!names.includes("tune.flac")) await new Promise((r) => setTimeout(r, 100));
    }
    expect(names).toEqual(["tune.flac"]);
    expect(await codeOf(watched.createWatchedFolder({ name: "etc", path: "/etc" }))).toMatch(
      /PermissionDenied|InvalidArgument/,
    );
    // Without a name it is named after the host folder, as over REST.
    const other = join(host, "podcasts");
    mkdirSync(other);
    const unnamed = await watched.createWatchedFolder({ path: other });
    expect(unnamed.watchedFolder?.name).toBe("podcasts");
    expect((await watched.deleteWatchedFolder({ id: unnamed.watchedFolder!.id })).success).toBe(true);
    expect((await watched.deleteWatchedFolder({ id: watchedFolder!.id })).success).toBe(true);
    expect(await codeOf(watched.getWatchedFolder({ id: watchedFolder!.id }))).toBe("NotFound");
  });
});
