import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { EXAMPLE_FILE, renderConfigExample } from "../../scripts/gen-config-example.ts";
import { loadConfig } from "../../src/config/load.ts";
import { configKeys } from "../../src/config/schema.ts";

/** `section.key` of every key line in the file, commented-out (unset) keys included. */
function keysInFile(text: string): string[] {
  const keys: string[] = [];
  let section = "";
  for (const line of text.split("\n")) {
    const header = /^\[(\w+)\]$/.exec(line);
    if (header) section = header[1]!;
    const key = /^#?(\w+) = /.exec(line);
    if (key) keys.push(`${section}.${key[1]}`);
  }
  return keys;
}

describe("config.example.toml", () => {
  const text = readFileSync(EXAMPLE_FILE, "utf8");

  it("documents exactly the keys of the schema", () => {
    const schemaKeys = configKeys().map((k) => `${k.section}.${k.key}`);
    expect(keysInFile(text), "run: node scripts/gen-config-example.ts").toEqual(schemaKeys);
  });

  it("is what scripts/gen-config-example.ts generates from the current schema", () => {
    expect(text === renderConfigExample(), "run: node scripts/gen-config-example.ts").toBe(true);
  });

  it("loads to exactly the defaults", () => {
    expect(loadConfig({ file: EXAMPLE_FILE, env: {} })).toEqual(loadConfig({ env: {} }));
  });

  it("names each key's environment variable", () => {
    for (const { section, key } of configKeys()) {
      expect(text).toContain(`# env: ATTIC_${section.toUpperCase()}_${key.toUpperCase()}\n`);
    }
  });
});
