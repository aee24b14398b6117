/**
 * `npm run gen`: regenerates everything derived from the protos.
 *  1. `buf generate` writes the TypeScript messages and services to src/gen/.
 *  2. `buf build` writes a descriptor image; each .proto of attic/v1 becomes
 *     one OpenAPI 2.0 document in docs/rpc/<file>.swagger.json.
 * Both outputs are checked in; CI can diff them against a fresh run.
 */
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { createFileRegistry, fromBinary } from "@bufbuild/protobuf";
import { FileDescriptorSetSchema } from "@bufbuild/protobuf/wkt";
import { swaggerFor } from "./rpc-openapi.ts";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const buf = join(root, "node_modules", ".bin", "buf");
const env = { ...process.env, BUF_CACHE_DIR: process.env.BUF_CACHE_DIR ?? join(root, ".buf-cache") };

function run(args: string[]): void {
  execFileSync(buf, args, { cwd: root, env, stdio: "inherit" });
}

function main(): void {
  run(["lint"]);
  run(["generate"]);
  const tmp = mkdtempSync(join(tmpdir(), "attic-gen-"));
  try {
    const image = join(tmp, "image.binpb");
    run(["build", "-o", image]);
    const set = fromBinary(FileDescriptorSetSchema, readFileSync(image));
    const registry = createFileRegistry(set);
    const out = join(root, "docs", "rpc");
    rmSync(out, { recursive: true, force: true });
    mkdirSync(out, { recursive: true });
    for (const file of registry.files) {
      if (!file.name.startsWith("attic/v1/")) continue;
      const target = join(out, `${basename(file.name)}.swagger.json`);
      writeFileSync(target, `${JSON.stringify(swaggerFor(file), null, 2)}\n`);
    }
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}

main();
