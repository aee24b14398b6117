import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createUser, register, type Session } from "../helpers/accounts.ts";
import { startServer, type TestServer } from "../helpers/server.ts";

const ID = "0190c7a8-0000-7000-8000-000000000000";

/** Every accounts-and-access route with a body, `:id` filled with ID. */
const ROUTES: [string, string][] = [
  ["POST", "/api/v1/auth/register"],
  ["POST", "/api/v1/auth/login"],
  ["POST", "/api/v1/auth/refresh"],
  ["POST", "/api/v1/auth/logout"],
  ["POST", "/api/v1/auth/change-password"],
  ["PUT", "/api/v1/auth/password"],
  ["PUT", "/api/v1/auth/profile"],
  ["POST", "/api/v1/auth/api-keys"],
  ["POST", "/api/v1/api-keys"],
  ["POST", "/api/v1/users"],
  ["PUT", `/api/v1/users/${ID}`],
  ["POST", `/api/v1/users/${ID}/reset-password`],
  ["POST", "/api/v1/roles"],
  ["PUT", `/api/v1/roles/${ID}`],
  ["POST", `/api/v1/roles/${ID}/assign`],
  ["POST", `/api/v1/roles/${ID}/unassign`],
  ["POST", "/api/v1/organizations"],
  ["PUT", `/api/v1/organizations/${ID}`],
  ["POST", "/api/v1/groups"],
  ["PUT", `/api/v1/groups/${ID}`],
  ["POST", `/api/v1/groups/${ID}/members`],
];

const BODIES: unknown[] = [
  null,
  [],
  "text",
  42,
  { username: ["a"], password: { x: 1 }, email: 7, name: null, permissions: [null], user_id: 5 },
  { name: "x".repeat(10_000), new_password: "y".repeat(5000), expires_at: "soon" },
  { __proto__: { admin: true }, constructor: { prototype: {} } },
];

describe("accounts and access: malformed input never answers 5xx", () => {
  let s: TestServer;
  let admin: string;
  let member: Session;
  beforeAll(async () => {
    s = await startServer({ auth: { registration_enabled: true } });
    admin = await s.login();
    member = await createUser(s, admin, "fuzzmember");
    await register(s, "fuzzreg");
  });
  afterAll(() => s.close());

  it("answers 4xx with the error body for every malformed body, as admin and as member", async () => {
    for (const token of [admin, member.token]) {
      for (const [method, path] of ROUTES) {
        for (const body of BODIES) {
          const r = await s.api(method, path, {
            token,
            body: JSON.stringify(body),
            headers: { "content-type": "application/json" },
          });
          const what = `${method} ${path} ${JSON.stringify(body)?.slice(0, 40)}`;
          expect(r.status, what).toBeLessThan(500);
          // Every field of a profile update is optional: an object of unknown keys is a no-op.
          if (path.endsWith("/auth/profile") && r.status === 200) continue;
          expect(r.status, what).toBeGreaterThanOrEqual(400);
          expect(r.body.error.code, what).toEqual(expect.any(String));
        }
      }
    }
  });

  it("answers 4xx for wrong content types and odd ids", async () => {
    for (const [method, path] of ROUTES) {
      const r = await s.api(method, path, {
        token: admin,
        body: "a=b",
        headers: { "content-type": "text/plain" },
      });
      expect(r.status, `${method} ${path}`).toBeGreaterThanOrEqual(400);
      expect(r.status, `${method} ${path}`).toBeLessThan(500);
    }
    for (const id of ["..", "%00", "x".repeat(300), "' OR 1=1 --", "%F0%9F%92%A9"]) {
      for (const base of ["users", "roles", "groups", "organizations", "api-keys"]) {
        const method = base === "api-keys" ? "DELETE" : "GET";
        const r = await s.api(method, `/api/v1/${base}/${id}`, { token: admin });
        expect(r.status, `${base}/${id}`).toBeGreaterThanOrEqual(400);
        expect(r.status, `${base}/${id}`).toBeLessThan(500);
      }
    }
  });

  it("needs authentication on every non-public route", async () => {
    for (const [method, path] of ROUTES) {
      if (["/api/v1/auth/register", "/api/v1/auth/login", "/api/v1/auth/refresh"].includes(path)) continue;
      const r = await s.api(method, path, { body: {} });
      expect(r.status, `${method} ${path}`).toBe(401);
    }
  });
});
