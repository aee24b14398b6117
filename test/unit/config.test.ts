import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ConfigError, describeConfig, envName, loadConfig, unknownEnvNames } from "../../src/config/load.ts";
import { parseDuration } from "../../src/config/schema.ts";

function tomlFile(text: string): string {
  const file = join(mkdtempSync(join(tmpdir(), "attic-config-")), "attic.toml");
  writeFileSync(file, text);
  return file;
}

/** The ConfigError message of a load that must fail. */
function failure(opts: Parameters<typeof loadConfig>[0]): string {
  try {
    loadConfig(opts);
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigError);
    return (err as Error).message;
  }
  throw new Error("expected the configuration to be refused");
}

describe("loadConfig", () => {
  it("uses the defaults of config.example.toml", () => {
    const cfg = loadConfig({ env: {} });
    expect(cfg.server).toMatchObject({ host: "0.0.0.0", port: 8080, trust_proxy: false, cors_origins: [] });
    expect(cfg.storage).toMatchObject({ data_dir: "./data", max_upload_bytes: 0 });
    expect(cfg.auth).toMatchObject({
      registration_enabled: false,
      access_token_ttl: 900,
      refresh_token_ttl: 7 * 86400,
      max_api_keys_per_user: 10,
    });
    expect(cfg.auth.initial_admin_password).toBeUndefined();
    expect(cfg.rate_limit).toMatchObject({
      enabled: true,
      global_per_minute: 100,
      login_per_minute: 5,
      auth_per_minute: 10,
      user_per_minute: 1000,
    });
  });

  it("applies flags > environment > file > defaults, key by key", () => {
    const file = tomlFile(`
[server]
port = 1111
host = "127.0.0.2"
trust_proxy = true
[auth]
registration_enabled = true
`);
    const cfg = loadConfig({
      file,
      env: {
        ATTIC_SERVER_PORT: "2222",
        ATTIC_SERVER_HOST: "127.0.0.3",
        ATTIC_RATE_LIMIT_LOGIN_PER_MINUTE: "7",
      },
      flags: { server: { port: "3333" } },
    });
    expect(cfg.server.port).toBe(3333); // flag over env and file
    expect(cfg.server.host).toBe("127.0.0.3"); // env over file
    expect(cfg.server.trust_proxy).toBe(true); // file over default
    expect(cfg.auth.registration_enabled).toBe(true);
    expect(cfg.rate_limit.login_per_minute).toBe(7); // env over default
    expect(cfg.rate_limit.global_per_minute).toBe(100); // default
  });

  it("reads the file named by ATTIC_CONFIG", () => {
    const file = tomlFile("[storage]\ndata_dir = '/srv/attic'\n");
    expect(loadConfig({ env: { ATTIC_CONFIG: file } }).storage.data_dir).toBe("/srv/attic");
  });

  it("names environment variables ATTIC_<SECTION>_<KEY>", () => {
    expect(envName("auth", "registration_enabled")).toBe("ATTIC_AUTH_REGISTRATION_ENABLED");
    expect(envName("rate_limit", "user_per_minute")).toBe("ATTIC_RATE_LIMIT_USER_PER_MINUTE");
  });

  it("spots ATTIC_* variables that set nothing", () => {
    const env = { ATTIC_SERVR_PORT: "1", ATTIC_SERVER_PORT: "2", ATTIC_CONFIG: "/x", HOME: "/root" };
    expect(unknownEnvNames(env)).toEqual(["ATTIC_SERVR_PORT"]);
  });

  it("parses environment strings: booleans, lists, durations", () => {
    const cfg = loadConfig({
      env: {
        ATTIC_AUTH_REGISTRATION_ENABLED: "true",
        ATTIC_RATE_LIMIT_ENABLED: "0",
        ATTIC_SERVER_CORS_ORIGINS: "https://a.example, https://b.example",
        ATTIC_AUTH_ACCESS_TOKEN_TTL: "30m",
        ATTIC_AUTH_REFRESH_TOKEN_TTL: "3600",
      },
    });
    expect(cfg.auth.registration_enabled).toBe(true);
    expect(cfg.rate_limit.enabled).toBe(false);
    expect(cfg.server.cors_origins).toEqual(["https://a.example", "https://b.example"]);
    expect(cfg.auth.access_token_ttl).toBe(1800);
    expect(cfg.auth.refresh_token_ttl).toBe(3600);
  });

  it("refuses bad values naming the key", () => {
    expect(failure({ env: {}, flags: { server: { port: "abc" } } })).toMatch(/server\.port/);
    expect(failure({ env: { ATTIC_SERVER_PORT: "-1" } })).toMatch(/server\.port/);
    expect(failure({ env: { ATTIC_SERVER_PORT: "70000" } })).toMatch(/server\.port/);
    expect(failure({ env: { ATTIC_AUTH_REGISTRATION_ENABLED: "maybe" } })).toMatch(
      /auth\.registration_enabled/,
    );
    expect(failure({ env: { ATTIC_AUTH_ACCESS_TOKEN_TTL: "soon" } })).toMatch(/auth\.access_token_ttl/);
    expect(failure({ env: { ATTIC_LOG_LEVEL: "loud" } })).toMatch(/log\.level/);
  });

  it("refuses unknown keys and sections in the file, naming them", () => {
    expect(failure({ env: {}, file: tomlFile("[server]\nprot = 80\n") })).toMatch(/server.*prot/);
    expect(failure({ env: {}, file: tomlFile("[sever]\nport = 80\n") })).toMatch(/sever/);
  });

  it("refuses a missing or malformed file, naming it", () => {
    expect(failure({ env: {}, file: "/nonexistent/attic.toml" })).toMatch(/\/nonexistent\/attic\.toml/);
    const bad = tomlFile("[server\nport = ");
    expect(failure({ env: {}, file: bad })).toContain(bad);
  });

  it("requires TLS and JWT key files in pairs", () => {
    expect(failure({ env: { ATTIC_SERVER_TLS_CERT: "/c.pem" } })).toMatch(/server\.tls_key/);
    expect(failure({ env: { ATTIC_AUTH_PRIVATE_KEY_FILE: "/k.pem" } })).toMatch(/auth\.public_key_file/);
  });

  it("refuses key and certificate files it cannot read, naming the key", () => {
    const cert = tomlFile("not really a certificate");
    expect(
      failure({ env: { ATTIC_SERVER_TLS_CERT: cert, ATTIC_SERVER_TLS_KEY: "/nonexistent/key.pem" } }),
    ).toMatch(/server\.tls_key: cannot read \/nonexistent\/key\.pem/);
    expect(
      failure({
        env: { ATTIC_AUTH_PRIVATE_KEY_FILE: "/nonexistent/p.pem", ATTIC_AUTH_PUBLIC_KEY_FILE: cert },
      }),
    ).toMatch(/auth\.private_key_file/);
  });

  it("freezes the result", () => {
    const cfg = loadConfig({ env: {} });
    expect(Object.isFrozen(cfg.server)).toBe(true);
    expect(() => {
      (cfg.server as { port: number }).port = 1;
    }).toThrow();
  });

  it("masks secrets when describing the settings", () => {
    const cfg = loadConfig({ env: { ATTIC_AUTH_INITIAL_ADMIN_PASSWORD: "s3cret-Value-123" } });
    const described = describeConfig(cfg);
    expect(described["auth.initial_admin_password"]).toBe("********");
    expect(JSON.stringify(described)).not.toContain("s3cret");
    expect(described["server.port"]).toBe(8080);
  });
});

describe("parseDuration", () => {
  it("reads s, m, h, d and bare seconds; refuses the rest", () => {
    expect(["30s", "15m", "2h", "7d", "45", 10].map(parseDuration)).toEqual([30, 900, 7200, 604800, 45, 10]);
    expect(["", "0", "-5m", "1w", "1.5h", "abc"].map(parseDuration)).toEqual(Array(6).fill(undefined));
  });
});
