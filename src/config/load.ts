import { accessSync, constants, readFileSync } from "node:fs";
import { parse as parseToml } from "smol-toml";
import { type Config, configKeys, configSchema, SECRET_KEYS } from "./schema.ts";

/** A configuration that cannot be used; the message names the offending key. */
export class ConfigError extends Error {
  override name = "ConfigError";
}

export interface LoadOptions {
  /** Path of a TOML file; missing file is an error only when given explicitly. */
  file?: string;
  env?: NodeJS.ProcessEnv;
  /** Values from command-line flags, as `{ section: { key: value } }`. */
  flags?: Record<string, Record<string, unknown>>;
}

type Tree = Record<string, Record<string, unknown>>;

/** The environment variable that sets `section.key`. */
export function envName(section: string, key: string): string {
  return `ATTIC_${section}_${key}`.toUpperCase();
}

function fromEnv(env: NodeJS.ProcessEnv): Tree {
  const tree: Tree = {};
  for (const { section, key } of configKeys()) {
    const value = env[envName(section, key)];
    if (value !== undefined && value !== "") (tree[section] ??= {})[key] = value;
  }
  return tree;
}

/**
 * ATTIC_* variables that set nothing (a typo such as ATTIC_SERVR_PORT), for
 * a start-up warning: a setting silently ignored is worse than a noisy one.
 */
export function unknownEnvNames(env: NodeJS.ProcessEnv = process.env): string[] {
  const known = new Set(configKeys().map(({ section, key }) => envName(section, key)));
  known.add("ATTIC_CONFIG");
  return Object.keys(env)
    .filter((name) => name.startsWith("ATTIC_") && !known.has(name))
    .sort();
}

function fromFile(file: string): Tree {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (err) {
    throw new ConfigError(`cannot read config file ${file}: ${(err as Error).message}`);
  }
  try {
    return parseToml(text) as Tree;
  } catch (err) {
    throw new ConfigError(`config file ${file} is not valid TOML: ${(err as Error).message}`);
  }
}

function merge(...layers: Tree[]): Tree {
  const out: Tree = {};
  for (const layer of layers) {
    for (const [section, values] of Object.entries(layer)) {
      if (values && typeof values === "object" && !Array.isArray(values)) {
        out[section] = { ...(out[section] ?? {}), ...values };
      } else {
        out[section] = values as Record<string, unknown>;
      }
    }
  }
  return out;
}

/**
 * Resolves the configuration: defaults, then the TOML file, then
 * `ATTIC_<SECTION>_<KEY>` variables, then flags. Validated once; the result is
 * frozen. Throws ConfigError naming the first bad key.
 */
export function loadConfig(opts: LoadOptions = {}): Config {
  const env = opts.env ?? process.env;
  const file = opts.file ?? env.ATTIC_CONFIG;
  const tree = merge(file ? fromFile(file) : {}, fromEnv(env), opts.flags ?? {});
  const parsed = configSchema.strict().safeParse(tree);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const key = issue.path.join(".") || "(root)";
    const message =
      issue.code === "unrecognized_keys" ? `unknown key(s) ${issue.keys.join(", ")}` : issue.message;
    throw new ConfigError(`invalid configuration: ${key}: ${message}`);
  }
  const cfg = parsed.data;
  if (Boolean(cfg.server.tls_cert) !== Boolean(cfg.server.tls_key)) {
    throw new ConfigError("invalid configuration: server.tls_cert and server.tls_key must be set together");
  }
  if (Boolean(cfg.auth.private_key_file) !== Boolean(cfg.auth.public_key_file)) {
    throw new ConfigError(
      "invalid configuration: auth.private_key_file and auth.public_key_file must be set together",
    );
  }
  checkReadable(cfg);
  return deepFreeze(cfg);
}

/** Files named by the configuration must be readable now, not at the first TLS handshake or login. */
function checkReadable(cfg: Config): void {
  const files: [string, string | undefined][] = [
    ["server.tls_cert", cfg.server.tls_cert],
    ["server.tls_key", cfg.server.tls_key],
    ["auth.private_key_file", cfg.auth.private_key_file],
    ["auth.public_key_file", cfg.auth.public_key_file],
  ];
  for (const [key, file] of files) {
    if (!file) continue;
    try {
      accessSync(file, constants.R_OK);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code ?? "unreadable";
      throw new ConfigError(`invalid configuration: ${key}: cannot read ${file} (${code})`);
    }
  }
}

function deepFreeze<T>(value: T): T {
  if (value && typeof value === "object") {
    for (const v of Object.values(value)) deepFreeze(v);
    Object.freeze(value);
  }
  return value;
}

/** The resolved settings as flat `section.key` pairs, secrets masked, for the start-up log. */
export function describeConfig(cfg: Config): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [section, values] of Object.entries(cfg)) {
    for (const [key, value] of Object.entries(values as object)) {
      const name = `${section}.${key}`;
      out[name] = SECRET_KEYS.has(name) && value !== undefined ? "********" : value;
    }
  }
  return out;
}
