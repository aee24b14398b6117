import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createUser, register, type Session } from "../helpers/accounts.ts";
import { startServer, type TestServer } from "../helpers/server.ts";
import { connectJson } from "../rpc/clients.ts";

describe("groups", () => {
  let s: TestServer;
  let admin: string;
  let member: Session;
  let other: Session;

  beforeAll(async () => {
    s = await startServer({ auth: { registration_enabled: true } });
    admin = await s.login();
    member = await createUser(s, admin, "groupie");
    other = await register(s, "grouprival");
  });
  afterAll(() => s.close());

  it("creates, lists, gets, updates and deletes groups", async () => {
    const created = await s.api("POST", "/api/v1/groups", {
      token: admin,
      body: { name: "Family", description: "the household" },
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ name: "Family", description: "the household", member_count: 0 });
    const id = created.body.id;
    expect((await s.api("POST", "/api/v1/groups", { token: admin, body: { name: "family" } })).status).toBe(
      409,
    );
    const list = await s.api("GET", "/api/v1/groups", { token: member.token });
    expect(list.status).toBe(200);
    expect(list.body).toMatchObject({ total: 1, groups: [expect.objectContaining({ id })] });
    expect((await s.api("GET", `/api/v1/groups/${id}`, { token: member.token })).body.name).toBe("Family");
    const put = await s.api("PUT", `/api/v1/groups/${id}`, { token: admin, body: { name: "Household" } });
    expect(put.body).toMatchObject({ name: "Household", description: "the household" });
    const del = await s.api("DELETE", `/api/v1/groups/${id}`, { token: admin });
    expect(del.body).toEqual({ success: true });
    expect((await s.api("GET", `/api/v1/groups/${id}`, { token: admin })).status).toBe(404);
  });

  it("needs group:manage to change groups: members get 403", async () => {
    expect(
      (await s.api("POST", "/api/v1/groups", { token: member.token, body: { name: "Mine" } })).status,
    ).toBe(403);
    const g = await s.api("POST", "/api/v1/groups", { token: admin, body: { name: "Locked" } });
    const put = await s.api("PUT", `/api/v1/groups/${g.body.id}`, {
      token: member.token,
      body: { name: "x" },
    });
    expect(put.status).toBe(403);
    expect((await s.api("DELETE", `/api/v1/groups/${g.body.id}`, { token: member.token })).status).toBe(403);
  });

  it("adds, lists and removes members of the same organization", async () => {
    const g = await s.api("POST", "/api/v1/groups", { token: admin, body: { name: "Readers" } });
    const add = await s.api("POST", `/api/v1/groups/${g.body.id}/members`, {
      token: admin,
      body: { user_id: member.userId },
    });
    expect(add.status).toBe(201);
    expect(add.body).toMatchObject({ user_id: member.userId, username: "groupie" });
    const again = await s.api("POST", `/api/v1/groups/${g.body.id}/members`, {
      token: admin,
      body: { user_id: member.userId },
    });
    expect(again.status).toBe(201);
    const members = await s.api("GET", `/api/v1/groups/${g.body.id}/members`, { token: member.token });
    expect(members.body).toMatchObject({
      total: 1,
      members: [expect.objectContaining({ user_id: member.userId })],
    });
    expect((await s.api("GET", `/api/v1/groups/${g.body.id}`, { token: admin })).body.member_count).toBe(1);
    const rm = await s.api("DELETE", `/api/v1/groups/${g.body.id}/members/${member.userId}`, {
      token: admin,
    });
    expect(rm.body).toEqual({ success: true });
    const rm2 = await s.api("DELETE", `/api/v1/groups/${g.body.id}/members/${member.userId}`, {
      token: admin,
    });
    expect(rm2.status).toBe(404);
    const bad = await s.api("POST", `/api/v1/groups/${g.body.id}/members`, { token: admin, body: {} });
    expect(bad.status).toBe(400);
  });

  it("a malformed user id in a body is 400 over REST as over RPC, for members and role assignments", async () => {
    const g = await s.api("POST", "/api/v1/groups", { token: admin, body: { name: "Malformed" } });
    const member = (user_id: string) =>
      s.api("POST", `/api/v1/groups/${g.body.id}/members`, { token: admin, body: { user_id } });
    const role = (await s.api("GET", "/api/v1/roles", { token: admin })).body.roles[0];
    const assign = (user_id: string) =>
      s.api("POST", `/api/v1/roles/${role.id}/assign`, { token: admin, body: { user_id } });
    for (const r of [await member("x"), await member("../x"), await assign("nope")]) {
      expect([r.status, r.body.error?.code]).toEqual([400, "ERR_VALIDATION"]);
    }
    const rpc = await connectJson(
      s.url,
      "attic.v1.GroupService/AddGroupMember",
      { group_id: g.body.id, user_id: "x" },
      admin,
    );
    expect([rpc.status, rpc.body.code]).toEqual([400, "invalid_argument"]);
    // A well-formed id of nobody stays 404 on both.
    const nobody = "01a25141-26f3-758d-b64b-6c5d2cb8a12e";
    expect((await member(nobody)).status).toBe(404);
    const rpcNobody = await connectJson(
      s.url,
      "attic.v1.GroupService/AddGroupMember",
      { group_id: g.body.id, user_id: nobody },
      admin,
    );
    expect([rpcNobody.status, rpcNobody.body.code]).toEqual([404, "not_found"]);
  });

  it("keeps organizations apart: foreign groups and users answer 404", async () => {
    const g = await s.api("POST", "/api/v1/groups", { token: admin, body: { name: "Private" } });
    const id = g.body.id;
    expect((await s.api("GET", `/api/v1/groups/${id}`, { token: other.token })).status).toBe(404);
    expect(
      (await s.api("PUT", `/api/v1/groups/${id}`, { token: other.token, body: { name: "x" } })).status,
    ).toBe(404);
    expect((await s.api("DELETE", `/api/v1/groups/${id}`, { token: other.token })).status).toBe(404);
    expect((await s.api("GET", `/api/v1/groups/${id}/members`, { token: other.token })).status).toBe(404);
    const join = await s.api("POST", `/api/v1/groups/${id}/members`, {
      token: other.token,
      body: { user_id: other.userId },
    });
    expect(join.status).toBe(404);
    const list = await s.api("GET", "/api/v1/groups", { token: other.token });
    expect(list.body.groups).toEqual([]);
    // Our group cannot take their user.
    const foreignUser = await s.api("POST", `/api/v1/groups/${id}/members`, {
      token: admin,
      body: { user_id: other.userId },
    });
    expect(foreignUser.status).toBe(404);
  });
});
