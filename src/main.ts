#!/usr/bin/env node
import { runCli } from "./cli.ts";

runCli(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
    // Let pino flush; then leave even if a stray handle lingers.
    setTimeout(() => process.exit(code), 200).unref();
  },
  (err) => {
    process.stderr.write(
      `attic: fatal: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`,
    );
    process.exit(1);
  },
);
