import { execFileSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join, resolve } from "node:path";
import { createFileRegistry, fromBinary } from "@bufbuild/protobuf";
import { FileDescriptorSetSchema } from "@bufbuild/protobuf/wkt";
import { describe, expect, it } from "vitest";
import { swaggerFor } from "../../scripts/rpc-openapi.ts";

const root = resolve(import.meta.dirname, "../..");
const buf = (args: string[]) =>
  execFileSync(resolve(root, "node_modules/.bin/buf"), args, {
    cwd: root,
    env: { ...process.env, BUF_CACHE_DIR: resolve(root, ".buf-cache") },
    encoding: "utf8",
  });

describe("generated RPC artifacts", () => {
  it("the protos are buf lint clean", () => {
    expect(() => buf(["lint"])).not.toThrow();
  });

  it("docs/rpc matches the protos (run `npm run gen` after editing proto/)", () => {
    const dir = mkdtempSync(join(tmpdir(), "attic-gen-test-"));
    try {
      const image = join(dir, "image.binpb");
      buf(["build", "-o", image]);
      const registry = createFileRegistry(fromBinary(FileDescriptorSetSchema, readFileSync(image)));
      const expected = [...registry.files]
        .filter((f) => f.name.startsWith("attic/v1/"))
        .map((f) => [`${basename(f.name)}.swagger.json`, swaggerFor(f)] as const);
      const onDisk = readdirSync(join(root, "docs/rpc")).sort();
      expect(onDisk).toEqual(expected.map(([name]) => name).sort());
      for (const [name, doc] of expected) {
        expect(JSON.parse(readFileSync(join(root, "docs/rpc", name), "utf8")), name).toEqual(doc);
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("one OpenAPI 2.0 document per RPC service of docs/api.md, plus common types", () => {
    const names = readdirSync(join(root, "docs/rpc")).map((n) => n.replace(".swagger.json", ""));
    expect(names.sort()).toEqual(
      [
        "common",
        "directory",
        "file",
        "filesystem",
        "grant",
        "group",
        "playback_position",
        "search",
        "settings",
        "share",
        "watched_folder",
      ].sort(),
    );
  });
});
