import type { TestServer } from "./server.ts";

/** A password that passes the policy for any test username. */
export const GOOD_PASSWORD = "correct-Horse-battery-9";

export interface Session {
  token: string;
  refresh: string;
  userId: string;
  orgId: string;
}

/** Registers `username` (server needs auth.registration_enabled) and returns its session. */
export async function register(
  s: TestServer,
  username: string,
  extra: { organization_name?: string; password?: string } = {},
): Promise<Session> {
  const r = await s.api("POST", "/api/v1/auth/register", {
    body: { username, email: `${username}@example.com`, password: extra.password ?? GOOD_PASSWORD, ...extra },
  });
  if (r.status !== 201) throw new Error(`register ${username}: ${r.status} ${r.text}`);
  return {
    token: r.body.access_token,
    refresh: r.body.refresh_token,
    userId: r.body.user.id,
    orgId: r.body.user.organization_id,
  };
}

/** Creates a user through POST /users as `adminToken` and signs them in. */
export async function createUser(
  s: TestServer,
  adminToken: string,
  username: string,
  role?: string,
): Promise<Session> {
  const r = await s.api("POST", "/api/v1/users", {
    token: adminToken,
    body: { username, email: `${username}@example.com`, password: GOOD_PASSWORD, ...(role ? { role } : {}) },
  });
  if (r.status !== 201) throw new Error(`create user ${username}: ${r.status} ${r.text}`);
  const login = await s.api("POST", "/api/v1/auth/login", { body: { username, password: GOOD_PASSWORD } });
  if (login.status !== 200) throw new Error(`login ${username}: ${login.status} ${login.text}`);
  return {
    token: login.body.access_token,
    refresh: login.body.refresh_token,
    userId: r.body.id,
    orgId: r.body.organization_id,
  };
}

/** Decodes a JWT payload without verifying it (tests inspect claims). */
export function claimsOf(token: string): Record<string, unknown> {
  return JSON.parse(Buffer.from(token.split(".")[1]!, "base64url").toString("utf8"));
}
