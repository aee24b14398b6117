/**
 * Writes config.example.toml from src/config/schema.ts: every key, its
 * default and the JSDoc comment written above it in the schema. Run
 * `node scripts/gen-config-example.ts` after changing the schema;
 * test/unit/config-example.test.ts fails while the file is out of date.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import type { z } from "zod";
import { envName } from "../src/config/load.ts";
import { configKeys, duration } from "../src/config/schema.ts";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..");
export const EXAMPLE_FILE = join(ROOT, "config.example.toml");

const HEADER = `# Attic configuration: every key, with its default value.
# Generated from src/config/schema.ts by \`node scripts/gen-config-example.ts\`; do not edit by hand.
#
# Use: attic serve --config FILE (or ATTIC_CONFIG=FILE). Every key is optional.
# Each key section.key can also be set by the environment variable
# ATTIC_<SECTION>_<KEY>, e.g. ATTIC_AUTH_REGISTRATION_ENABLED=true (lists comma-separated).
# Precedence: command-line flags > environment > this file > defaults.
# Durations take s, m, h or d (e.g. "15m", "7d") or a number of seconds.
`;

interface Def {
  type: string;
  defaultValue?: unknown;
  innerType?: z.ZodType;
}
const def = (s: z.ZodType) => (s as unknown as { def: Def }).def;

/** "15m" for 900, "7d" for 604800: the largest unit that divides the seconds. */
function formatDuration(seconds: number): string {
  for (const [unit, n] of [
    ["d", 86400],
    ["h", 3600],
    ["m", 60],
  ] as const) {
    if (seconds % n === 0) return `${seconds / n}${unit}`;
  }
  return `${seconds}s`;
}

function tomlValue(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(tomlValue).join(", ")}]`;
  if (typeof v === "string") return JSON.stringify(v);
  return String(v);
}

/** The JSDoc comment written right above `key:` in `section`'s block of the schema source. */
function commentFor(source: string, section: string, key: string): string[] {
  const start = source.search(new RegExp(`^  ${section}: z$`, "m"));
  if (start < 0) return [];
  const rest = source.slice(start + 1);
  const end = rest.search(/^ {2}\w+: z$/m);
  const block = end < 0 ? rest : rest.slice(0, end);
  const m = new RegExp(`/\\*\\*((?:(?!\\*/)[\\s\\S])*)\\*/\\s*${key}:`).exec(block);
  if (!m?.[1]) return [];
  return m[1]
    .split("\n")
    .map((l) => l.replace(/^\s*\*?\s?/, "").trimEnd())
    .filter(Boolean);
}

/** The full text of config.example.toml for the current schema. */
export function renderConfigExample(): string {
  const source = readFileSync(join(ROOT, "src/config/schema.ts"), "utf8");
  const lines = [HEADER.trimEnd()];
  let current = "";
  for (const { section, key, schema } of configKeys()) {
    if (section !== current) {
      lines.push(`\n[${section}]`);
      current = section;
    }
    for (const c of commentFor(source, section, key)) lines.push(`# ${c}`);
    lines.push(`# env: ${envName(section, key)}`);
    const d = def(schema);
    if (d.type !== "default") {
      lines.push(`# (unset by default)`, `#${key} = ""`);
      continue;
    }
    const value = d.innerType === duration ? formatDuration(d.defaultValue as number) : d.defaultValue;
    lines.push(`${key} = ${tomlValue(value)}`);
  }
  return `${lines.join("\n")}\n`;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  writeFileSync(EXAMPLE_FILE, renderConfigExample());
  process.stdout.write(`wrote ${EXAMPLE_FILE}\n`);
}
