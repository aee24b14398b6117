import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadConfig } from "../../src/config/load.ts";
import type { ConfigInput } from "../../src/config/schema.ts";
import { createLogger } from "../../src/log.ts";
import { type AtticServer, buildServer } from "../../src/server.ts";
import { TEST_KEYS_DIR } from "../setup/keys.ts";

export const ADMIN_PASSWORD = "correct-Horse-battery-9";

/**
 * The RS256 key pair shared by every test server, made once per machine by
 * the vitest globalSetup (test/setup/keys.ts) before any worker starts.
 */
export function testKeys(): { private_key_file: string; public_key_file: string } {
  const priv = join(TEST_KEYS_DIR, "private.pem");
  const pub = join(TEST_KEYS_DIR, "public.pem");
  if (!existsSync(pub))
    throw new Error(`no test key pair in ${TEST_KEYS_DIR}: run the tests through vitest (globalSetup)`);
  return { private_key_file: priv, public_key_file: pub };
}

export interface TestServer {
  url: string;
  port: number;
  dataDir: string;
  server: AtticServer;
  /** fetch against the server with JSON in and out; `token` may be a bearer token or `{apiKey}`. */
  api(method: string, path: string, opts?: ApiOptions): Promise<ApiResponse>;
  /** Logs in and returns the access token (admin by default). */
  login(username?: string, password?: string): Promise<string>;
  close(): Promise<void>;
}

export interface ApiOptions {
  body?: unknown;
  token?: string | { apiKey: string };
  headers?: Record<string, string>;
}

export interface ApiResponse {
  status: number;
  headers: Headers;
  // biome-ignore lint/suspicious/noExplicitAny: test bodies are inspected loosely
  body: any;
  text: string;
}

type Overrides = { [S in keyof ConfigInput]?: Partial<NonNullable<ConfigInput[S]>> };

/**
 * Starts a real server on an ephemeral port with a fresh temp data dir, a
 * cheap password hash, generous rate limits (unless overridden) and the admin
 * password ADMIN_PASSWORD.
 */
export async function startServer(
  overrides: Overrides = {},
  opts: {
    keepDataDir?: string;
    /** Receives the server's log lines (JSON), at overrides.log.level. */
    logTo?: (line: string) => void;
  } = {},
): Promise<TestServer> {
  const dataDir = opts.keepDataDir ?? mkdtempSync(join(tmpdir(), "attic-test-"));
  const flags: Record<string, Record<string, unknown>> = {
    server: { host: "127.0.0.1", port: 0, ...overrides.server },
    storage: { data_dir: dataDir, ...overrides.storage },
    auth: {
      initial_admin_password: ADMIN_PASSWORD,
      password_hash_memory_kib: 1024,
      password_hash_iterations: 1,
      ...testKeys(),
      ...overrides.auth,
    },
    rate_limit: {
      global_per_minute: 100_000,
      login_per_minute: 100_000,
      auth_per_minute: 100_000,
      user_per_minute: 100_000,
      ...overrides.rate_limit,
    },
    log: { level: process.env.ATTIC_TEST_LOG ?? "silent", ...overrides.log },
  };
  for (const s of ["media", "watch"] as const) if (overrides[s]) flags[s] = { ...overrides[s] };
  const cfg = loadConfig({ env: {}, flags });
  const log = createLogger(cfg.log.level, opts.logTo && { write: opts.logTo });
  const server = await buildServer(cfg, { log });
  const { port } = await server.listen();
  const url = `http://127.0.0.1:${port}`;

  const api = async (method: string, path: string, o: ApiOptions = {}): Promise<ApiResponse> => {
    const headers: Record<string, string> = { ...o.headers };
    if (typeof o.token === "string") headers.authorization = `Bearer ${o.token}`;
    else if (o.token) headers["x-api-key"] = o.token.apiKey;
    let body: RequestInit["body"];
    if (o.body instanceof FormData || typeof o.body === "string") body = o.body;
    else if (o.body !== undefined) {
      body = JSON.stringify(o.body);
      headers["content-type"] ??= "application/json";
    }
    const res = await fetch(url + path, { method, headers, body });
    const text = await res.text();
    let parsed: unknown = text;
    try {
      parsed = JSON.parse(text);
    } catch {}
    return { status: res.status, headers: res.headers, body: parsed, text };
  };

  return {
    url,
    port,
    dataDir,
    server,
    api,
    async login(username = "admin", password = ADMIN_PASSWORD) {
      const r = await api("POST", "/api/v1/auth/login", { body: { username, password } });
      if (r.status !== 200) throw new Error(`login ${username} failed: ${r.status} ${r.text}`);
      return r.body.access_token as string;
    },
    async close() {
      await server.close();
      if (!opts.keepDataDir) rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
