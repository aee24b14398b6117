import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { readAsset, repoRoot } from "../../src/platform/assets.ts";

describe("readAsset (from a checkout)", () => {
  it("finds the repository root", () => {
    expect(JSON.parse(readFileSync(join(repoRoot(), "package.json"), "utf8")).name).toBe("attic");
  });

  it("reads files relative to the repository root", () => {
    expect(readAsset("package.json")?.toString("utf8")).toContain('"name": "attic"');
    expect(readAsset("node_modules/swagger-ui-dist/swagger-ui.css")?.length).toBeGreaterThan(1000);
  });

  it("answers undefined for missing files and for paths leaving the root", () => {
    expect(readAsset("no/such/file.txt")).toBeUndefined();
    expect(readAsset("../etc/passwd")).toBeUndefined();
    expect(readAsset("web/../../etc/passwd")).toBeUndefined();
    expect(readAsset("/etc/passwd")).toBeUndefined();
    expect(readAsset("a\0b")).toBeUndefined();
  });
});
