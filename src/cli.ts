import { parseArgs } from "node:util";
import { ConfigError, describeConfig, loadConfig, unknownEnvNames } from "./config/load.ts";
import { createLogger } from "./log.ts";
import { VERSION } from "./version.ts";

const HELP = `attic ${VERSION}: self-hosted file and media server

Usage:
  attic serve [--config FILE] [--data-dir DIR] [--host HOST] [--port N]
  attic --version
  attic --help

Commands:
  serve        Start the server (REST under /api/v1, Connect RPC, web UI) on one port.

Every configuration key section.key can also be set as ATTIC_<SECTION>_<KEY>.
See config.example.toml for the full list.
`;

const SERVE_HELP = `Usage: attic serve [options]

Options:
  -c, --config FILE     TOML configuration file (or ATTIC_CONFIG)
  -d, --data-dir DIR    database, blobs and keys (default ./data)
      --host HOST       listen address (default 0.0.0.0)
  -p, --port N          listen port (default 8080; 0 picks a free one)
      --log-level LEVEL trace|debug|info|warn|error|fatal|silent
  -h, --help            this help

Precedence: flags > environment > file > defaults.
`;

/** Runs the CLI; resolves with the process exit code (serve resolves when stopped). */
export async function runCli(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  if (command === "--version" || command === "-v" || command === "version") {
    process.stdout.write(`attic ${VERSION}\n`);
    return 0;
  }
  if (command === undefined || command === "--help" || command === "-h" || command === "help") {
    process.stdout.write(HELP);
    return command === undefined ? 2 : 0;
  }
  if (command !== "serve") {
    process.stderr.write(`attic: unknown command ${JSON.stringify(command)}\n\n${HELP}`);
    return 2;
  }
  let values: Record<string, string | boolean | undefined>;
  try {
    ({ values } = parseArgs({
      args: rest,
      options: {
        config: { type: "string", short: "c" },
        "data-dir": { type: "string", short: "d" },
        host: { type: "string" },
        port: { type: "string", short: "p" },
        "log-level": { type: "string" },
        help: { type: "boolean", short: "h" },
      },
      strict: true,
    }));
  } catch (err) {
    process.stderr.write(`attic serve: ${(err as Error).message}\n\n${SERVE_HELP}`);
    return 2;
  }
  if (values.help) {
    process.stdout.write(SERVE_HELP);
    return 0;
  }
  return serve(values);
}

async function serve(values: Record<string, string | boolean | undefined>): Promise<number> {
  const flags: Record<string, Record<string, unknown>> = {};
  const set = (section: string, key: string, v: unknown) => {
    if (v !== undefined) (flags[section] ??= {})[key] = v;
  };
  set("server", "host", values.host);
  set("server", "port", values.port);
  set("storage", "data_dir", values["data-dir"]);
  set("log", "level", values["log-level"]);
  let cfg: ReturnType<typeof loadConfig>;
  try {
    cfg = loadConfig({ file: values.config as string | undefined, flags });
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`attic: ${err.message}\n`);
      return 2;
    }
    throw err;
  }
  const log = createLogger(cfg.log.level);
  log.info({ version: VERSION, settings: describeConfig(cfg) }, "starting attic");
  const unknown = unknownEnvNames();
  if (unknown.length) log.warn({ variables: unknown }, "ignoring environment variables that name no setting");
  // Loaded here, not at the top: --version and --help stay fast.
  const { buildServer } = await import("./server.ts");
  let server: Awaited<ReturnType<typeof buildServer>> | undefined;
  try {
    server = await buildServer(cfg, { log });
    const { url } = await server.listen();
    process.stdout.write(`attic listening on ${url}\n`);
  } catch (err) {
    // Address in use, data dir not writable, a bad certificate...: say so in one line, no stack.
    log.fatal({ err }, "cannot start");
    process.stderr.write(`attic: cannot start: ${(err as Error).message}\n`);
    await server?.close().catch(() => {});
    return 1;
  }
  const running = server;

  return new Promise<number>((resolveExit) => {
    let stopping = false;
    const stop = async (signal: string) => {
      if (stopping) return;
      stopping = true;
      log.info({ signal }, "shutting down");
      try {
        await running.close();
        log.info("stopped");
        resolveExit(0);
      } catch (err) {
        log.error({ err }, "shutdown failed");
        resolveExit(1);
      }
    };
    process.once("SIGTERM", () => void stop("SIGTERM"));
    process.once("SIGINT", () => void stop("SIGINT"));
  });
}
