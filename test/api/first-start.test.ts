import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { eq } from "drizzle-orm";
import { afterAll, describe, expect, it } from "vitest";
import { loadConfig } from "../../src/config/load.ts";
import { organizations, roles, userRoles, users } from "../../src/db/schema.ts";
import { hasPermission } from "../../src/domain/permissions.ts";
import { createLogger } from "../../src/log.ts";
import { type AtticServer, buildServer } from "../../src/server.ts";
import { testKeys } from "../helpers/server.ts";

const dataDir = mkdtempSync(join(tmpdir(), "attic-first-start-"));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

/** Starts a server on `dataDir` with no admin password and no key files configured; captures its log. */
async function start(extraAuth: Record<string, unknown> = {}, dir = dataDir) {
  const lines: string[] = [];
  const cfg = loadConfig({
    env: {},
    flags: {
      server: { host: "127.0.0.1", port: 0 },
      storage: { data_dir: dir },
      auth: { password_hash_memory_kib: 1024, password_hash_iterations: 1, ...extraAuth },
    },
  });
  const log = createLogger("info", { write: (s: string) => void lines.push(s) });
  const server: AtticServer = await buildServer(cfg, { log });
  const { port } = await server.listen();
  const url = `http://127.0.0.1:${port}`;
  const login = (username: string, password: string) =>
    fetch(`${url}/api/v1/auth/login`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ username, password }),
    });
  return { server, url, lines, login, log: () => lines.join("") };
}

const mode = (file: string) => statSync(file).mode & 0o777;

describe("first start", () => {
  let password = "";
  let token = "";
  let publicKey = "";

  it("creates Default, its Admin and Member roles and the admin user with a random password", async () => {
    const s = await start();
    try {
      const db = s.server.ctx.db;
      const orgs = db.select().from(organizations).all();
      expect(orgs.map((o) => o.name)).toEqual(["Default"]);
      const orgRoles = db.select().from(roles).where(eq(roles.organization_id, orgs[0]!.id)).all();
      expect(orgRoles.map((r) => r.name).sort()).toEqual(["Admin", "Member"]);
      const admin = orgRoles.find((r) => r.name === "Admin")!;
      for (const p of ["file:write", "org:admin", "user:manage", "role:admin", "watched:admin"]) {
        expect(hasPermission(admin.permissions, p), p).toBe(true);
      }
      const member = orgRoles.find((r) => r.name === "Member")!;
      for (const p of ["file:read", "file:write", "file:delete", "org:read"]) {
        expect(hasPermission(member.permissions, p), p).toBe(true);
      }
      for (const p of ["org:admin", "user:manage", "role:write"]) {
        expect(hasPermission(member.permissions, p), p).toBe(false);
      }

      const all = db.select().from(users).all();
      expect(all.map((u) => u.username)).toEqual(["admin"]);
      const links = db.select().from(userRoles).where(eq(userRoles.user_id, all[0]!.id)).all();
      expect(links.map((l) => l.role_id)).toEqual([admin.id]);

      const file = join(dataDir, "initial-admin-password");
      password = readFileSync(file, "utf8").trim();
      expect(password.length).toBeGreaterThanOrEqual(16);
      expect(mode(file)).toBe(0o600);
      expect(s.log()).toContain(password);
      expect(all[0]!.password_hash).not.toContain(password);

      const res = await s.login("admin", password);
      expect(res.status).toBe(200);
      token = ((await res.json()) as { access_token: string }).access_token;
    } finally {
      await s.server.close();
    }
  });

  it("keeps the generated RS256 4096-bit key pair in DATA_DIR/keys with mode 0600", () => {
    const keys = join(dataDir, "keys");
    for (const f of ["jwt-private.pem", "jwt-public.pem"]) expect(mode(join(keys, f))).toBe(0o600);
    publicKey = readFileSync(join(keys, "jwt-public.pem"), "utf8");
    expect(publicKey).toContain("BEGIN PUBLIC KEY");
  });

  it("on restart keeps the keys, the admin and its password, and earlier tokens stay valid", async () => {
    const s = await start();
    try {
      expect(readFileSync(join(dataDir, "keys", "jwt-public.pem"), "utf8")).toBe(publicKey);
      expect(s.server.ctx.db.select().from(users).all()).toHaveLength(1);
      expect(s.server.ctx.db.select().from(organizations).all()).toHaveLength(1);
      expect(readFileSync(join(dataDir, "initial-admin-password"), "utf8").trim()).toBe(password);
      expect(s.log()).not.toContain(password);
      expect(s.log()).not.toContain("generated a new RS256");
      expect((await s.login("admin", password)).status).toBe(200);
      const me = await fetch(`${s.url}/api/v1/auth/profile`, {
        headers: { authorization: `Bearer ${token}` },
      });
      expect(me.status).toBe(200);
    } finally {
      await s.server.close();
    }
  });

  it("replaces a leftover password file with a fresh 0600 one", async () => {
    const dir = mkdtempSync(join(tmpdir(), "attic-first-start-"));
    const file = join(dir, "initial-admin-password");
    writeFileSync(file, "stale\n", { mode: 0o644 });
    const s = await start({ ...testKeys() }, dir);
    try {
      expect(mode(file)).toBe(0o600);
      const fresh = readFileSync(file, "utf8").trim();
      expect(fresh).not.toBe("stale");
      expect((await s.login("admin", fresh)).status).toBe(200);
    } finally {
      await s.server.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("uses auth.initial_admin_password when set, writing no password file", async () => {
    const dir = mkdtempSync(join(tmpdir(), "attic-first-start-"));
    const s = await start({ initial_admin_password: "correct-Horse-battery-9" }, dir);
    try {
      expect((await s.login("admin", "correct-Horse-battery-9")).status).toBe(200);
      expect(() => statSync(join(dir, "initial-admin-password"))).toThrow();
      expect(s.log()).not.toContain("correct-Horse-battery-9");
    } finally {
      await s.server.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
