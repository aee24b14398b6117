import { randomUUID } from "node:crypto";
import { gzipSync } from "node:zlib";
import { toJson } from "@bufbuild/protobuf";
import { StructSchema } from "@bufbuild/protobuf/wkt";
import { Code, ConnectError } from "@connectrpc/connect";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DirectoryService } from "../../src/gen/attic/v1/directory_pb.ts";
import { GroupService } from "../../src/gen/attic/v1/group_pb.ts";
import { SettingsService } from "../../src/gen/attic/v1/settings_pb.ts";
import { startServer, type TestServer } from "../helpers/server.ts";
import { type Credential, connectJson, rpcClient } from "./clients.ts";

const MEMBER_PASSWORD = "correct-Horse-battery-9m";

interface Case {
  name: string;
  rest: [method: string, path: string, body?: unknown];
  rpc: [procedure: string, body: unknown];
  as: "admin" | "member" | "nobody" | "readOnlyKey";
  status: number;
  code: string;
  wire: string;
}

describe("REST and RPC answer the same failure alike", () => {
  let s: TestServer;
  let admin: string;
  let member: string;
  let readOnlyKey: { apiKey: string };
  const groupName = `team-${randomUUID().slice(0, 8)}`;

  beforeAll(async () => {
    s = await startServer({ auth: { registration_enabled: true } });
    admin = await s.login();
    const created = await s.api("POST", "/api/v1/users", {
      token: admin,
      body: { username: "paritymember", email: "pm@example.com", password: MEMBER_PASSWORD },
    });
    expect(created.status).toBe(201);
    member = await s.login("paritymember", MEMBER_PASSWORD);
    const g = await s.api("POST", "/api/v1/groups", { token: admin, body: { name: groupName } });
    expect(g.status).toBe(201);
    const key = await s.api("POST", "/api/v1/auth/api-keys", {
      token: member,
      body: { name: "read-only", permissions: ["org:read"] },
    });
    expect(key.status).toBe(201);
    readOnlyKey = { apiKey: key.body.key };
  });
  afterAll(() => s.close());

  const cases: Case[] = [
    {
      name: "unauthenticated",
      rest: ["GET", "/api/v1/settings/user"],
      rpc: ["attic.v1.SettingsService/GetUserSettings", {}],
      as: "nobody",
      status: 401,
      code: "unauthenticated",
      wire: "ERR_UNAUTHENTICATED",
    },
    {
      name: "permission denied",
      rest: ["PUT", "/api/v1/settings/app", { site: "x" }],
      rpc: ["attic.v1.SettingsService/UpdateAppSettings", { settings: { site: "x" } }],
      as: "member",
      status: 403,
      code: "permission_denied",
      wire: "ERR_PERMISSION_DENIED",
    },
    {
      name: "not found",
      rest: ["GET", `/api/v1/groups/${randomUUID()}`],
      rpc: ["attic.v1.GroupService/GetGroup", { id: randomUUID() }],
      as: "admin",
      status: 404,
      code: "not_found",
      wire: "ERR_NOT_FOUND",
    },
    {
      name: "invalid argument",
      rest: ["PUT", "/api/v1/settings/user", { "bad key!": 1 }],
      rpc: ["attic.v1.SettingsService/UpdateUserSettings", { settings: { "bad key!": 1 } }],
      as: "admin",
      status: 400,
      code: "invalid_argument",
      wire: "ERR_VALIDATION",
    },
    {
      name: "file not found",
      rest: ["GET", `/api/v1/files/${randomUUID()}`],
      rpc: ["attic.v1.FileService/GetFile", { id: randomUUID() }],
      as: "admin",
      status: 404,
      code: "not_found",
      wire: "ERR_FILE_NOT_FOUND",
    },
    {
      name: "malformed file id",
      rest: ["GET", "/api/v1/files/not-an-id"],
      rpc: ["attic.v1.FileService/GetFile", { id: "not-an-id" }],
      as: "admin",
      status: 400,
      code: "invalid_argument",
      wire: "ERR_VALIDATION",
    },
    {
      name: "malformed group id",
      rest: ["GET", "/api/v1/groups/1'--"],
      rpc: ["attic.v1.GroupService/GetGroup", { id: "1'--" }],
      as: "admin",
      status: 400,
      code: "invalid_argument",
      wire: "ERR_VALIDATION",
    },
    {
      name: "empty directory id",
      rest: ["GET", "/api/v1/directories/%20"],
      rpc: ["attic.v1.DirectoryService/GetDirectory", { id: "" }],
      as: "admin",
      status: 400,
      code: "invalid_argument",
      wire: "ERR_VALIDATION",
    },
    {
      name: "directory not found",
      rest: ["GET", `/api/v1/directories/${randomUUID()}`],
      rpc: ["attic.v1.DirectoryService/GetDirectory", { id: randomUUID() }],
      as: "admin",
      status: 404,
      code: "not_found",
      wire: "ERR_DIRECTORY_NOT_FOUND",
    },
    {
      name: "invalid directory name",
      rest: ["POST", "/api/v1/directories", { name: "a/b" }],
      rpc: ["attic.v1.DirectoryService/CreateDirectory", { name: "a/b" }],
      as: "admin",
      status: 400,
      code: "invalid_argument",
      wire: "ERR_VALIDATION",
    },
    {
      name: "file permission missing (API key with org:read only)",
      rest: ["GET", "/api/v1/files"],
      rpc: ["attic.v1.FileService/ListFiles", {}],
      as: "readOnlyKey",
      status: 403,
      code: "permission_denied",
      wire: "ERR_PERMISSION_DENIED",
    },
  ];

  for (const c of cases) {
    it(c.name, async () => {
      const creds: Record<Case["as"], Credential> = { admin, member, nobody: undefined, readOnlyKey };
      const cred = creds[c.as];
      const rest = await s.api(c.rest[0], c.rest[1], { token: cred, body: c.rest[2] });
      const rpc = await connectJson(s.url, c.rpc[0], c.rpc[1], cred);
      expect(rest.status).toBe(c.status);
      expect(rest.body.error.code).toBe(c.wire);
      expect(rpc.status).toBe(c.status);
      expect(rpc.body).toMatchObject({ code: c.code, message: expect.any(String) });
      expect(rpc.headers.get("attic-error-code")).toBe(c.wire);
    });
  }

  it("already exists: a duplicate directory name is 409 / ALREADY_EXISTS on both", async () => {
    expect(
      (await s.api("POST", "/api/v1/directories", { token: admin, body: { name: "twice" } })).status,
    ).toBe(201);
    const rest = await s.api("POST", "/api/v1/directories", { token: admin, body: { name: "twice" } });
    const rpc = await connectJson(
      s.url,
      "attic.v1.DirectoryService/CreateDirectory",
      { name: "twice" },
      admin,
    );
    expect(rest.status).toBe(409);
    expect(rpc.status).toBe(409);
    expect(rpc.body.code).toBe("already_exists");
    expect(rpc.headers.get("attic-error-code")).toBe(rest.body.error.code);
  });

  it("already exists: a duplicate group name is 409 / ALREADY_EXISTS", async () => {
    const rest = await s.api("POST", "/api/v1/groups", { token: admin, body: { name: groupName } });
    expect(rest.status).toBe(409);
    expect(rest.body.error.code).toBe("ERR_CONFLICT");
    const err = await rpcClient(s.url, GroupService, admin)
      .createGroup({ name: groupName })
      .catch((e) => ConnectError.from(e));
    expect((err as ConnectError).code).toBe(Code.AlreadyExists);
  });

  it("hides another organization's groups, directories and files exactly like missing ones", async () => {
    const { group } = await rpcClient(s.url, GroupService, admin).createGroup({
      name: `own-${randomUUID().slice(0, 6)}`,
    });
    const { directory } = await rpcClient(s.url, DirectoryService, admin).createDirectory({
      name: "private",
    });
    // A self-registered user gets an organization of their own.
    const reg = await s.api("POST", "/api/v1/auth/register", {
      body: { username: "outsider", email: "out@example.com", password: "correct-Horse-battery-9o" },
    });
    expect(reg.status).toBe(201);
    const outsider = reg.body.access_token as string;
    const probes: [string, unknown, string][] = [
      ["attic.v1.GroupService/GetGroup", { id: group!.id }, "ERR_NOT_FOUND"],
      ["attic.v1.DirectoryService/GetDirectory", { id: directory!.file!.id }, "ERR_DIRECTORY_NOT_FOUND"],
      ["attic.v1.FileService/GetFile", { id: directory!.file!.id }, "ERR_FILE_NOT_FOUND"],
      ["attic.v1.FileService/DeleteFile", { id: directory!.file!.id }, "ERR_FILE_NOT_FOUND"],
    ];
    for (const [procedure, body, wire] of probes) {
      const theirs = await connectJson(s.url, procedure, body, outsider);
      const missing = await connectJson(s.url, procedure, { id: randomUUID() }, outsider);
      expect(theirs.status, procedure).toBe(404);
      expect(theirs.body, procedure).toEqual(missing.body);
      expect(theirs.headers.get("attic-error-code"), procedure).toBe(wire);
    }
    expect((await s.api("GET", `/api/v1/directories/${directory!.file!.id}`, { token: admin })).status).toBe(
      200,
    );
  });

  it("answers an undecodable protobuf body without internals", async () => {
    // connect-es reports an unparseable binary message as INTERNAL; src/rpc/decode-errors.ts
    // answers it as the client's mistake it is, like the JSON path.
    const res = await fetch(`${s.url}/attic.v1.SettingsService/GetUserSettings`, {
      method: "POST",
      headers: { "content-type": "application/proto", authorization: `Bearer ${admin}` },
      body: new Uint8Array([0xff, 0xff, 0xff]),
    });
    const body = (await res.json()) as { code: string; message: string };
    expect([res.status, body.code, res.headers.get("attic-error-code")]).toEqual([
      400,
      "invalid_argument",
      "ERR_VALIDATION",
    ]);
    expect(body.message).not.toMatch(/\.ts:\d+|node_modules|SELECT/);
    // gRPC-Web carries the status in its trailer frame.
    const frame = new Uint8Array([0, 0, 0, 0, 3, 0xff, 0xff, 0xff]);
    const web = await fetch(`${s.url}/attic.v1.SettingsService/GetUserSettings`, {
      method: "POST",
      headers: { "content-type": "application/grpc-web+proto", authorization: `Bearer ${admin}` },
      body: frame,
    });
    const text = Buffer.from(await web.arrayBuffer()).toString("latin1");
    expect(text).toMatch(/grpc-status: ?3\b/);
  });
});

describe("RPC limits", () => {
  let s: TestServer;
  let admin: string;
  beforeAll(async () => {
    s = await startServer({ rate_limit: { user_per_minute: 6 } });
    admin = await s.login();
  });
  afterAll(() => s.close());

  it("refuses a gzip message that inflates past readMaxBytes, storing nothing", async () => {
    const body = JSON.stringify({ settings: { big: "a".repeat(8 * 1024 * 1024) } });
    const gz = gzipSync(body);
    expect(gz.length).toBeLessThan(64 * 1024);
    const res = await fetch(`${s.url}/attic.v1.SettingsService/UpdateUserSettings`, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        "content-encoding": "gzip",
        authorization: `Bearer ${admin}`,
      },
      body: gz,
    });
    const answer = (await res.json()) as { code: string };
    expect(answer.code).toBe("resource_exhausted");
    expect(res.status).toBe(429);
    const stored = await s.api("GET", "/api/v1/settings/user", { token: admin });
    expect(stored.body).toEqual({});
  });

  it("shares the per-user rate limit with REST", async () => {
    // The gzip test above used one call of the budget of 6.
    const settings = rpcClient(s.url, SettingsService, admin);
    for (let i = 0; i < 2; i++)
      expect((await s.api("GET", "/api/v1/settings/user", { token: admin })).status).toBe(200);
    for (let i = 0; i < 3; i++) await settings.getUserSettings({});
    const err = await settings.getUserSettings({}).catch((e) => ConnectError.from(e));
    expect((err as ConnectError).code).toBe(Code.ResourceExhausted);
    expect((err as ConnectError).metadata.get("x-ratelimit-remaining")).toBe("0");
    const [detail] = (err as ConnectError).findDetails(StructSchema);
    const rest = await s.api("GET", "/api/v1/settings/user", { token: admin });
    expect(rest.status).toBe(429);
    expect(rest.body.error.code).toBe("RATE_LIMIT_EXCEEDED");
    // The same details over both transports.
    expect(detail && toJson(StructSchema, detail)).toEqual(rest.body.error.details);
  });

  it("counts RPC calls in attic_rpc_requests_total by procedure and code", async () => {
    const text = (await s.api("GET", "/metrics")).text;
    expect(text).toMatch(
      /attic_rpc_requests_total\{procedure="attic\.v1\.SettingsService\/GetUserSettings",code="ok"\} 3/,
    );
    expect(text).toMatch(
      /attic_rpc_requests_total\{procedure="attic\.v1\.SettingsService\/GetUserSettings",code="resource_exhausted"\} 1/,
    );
  });
});
