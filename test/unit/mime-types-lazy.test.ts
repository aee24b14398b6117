import { createRequire } from "node:module";
import { lookup } from "mime-types";
import { describe, expect, it } from "vitest";

const require = createRequire(import.meta.url);

describe("mime-types-lazy (the single executable's mime-types)", () => {
  it("answers lookup() exactly as mime-types", () => {
    const shim = require("../../src/platform/mime-types-lazy.cjs") as { lookup: typeof lookup };
    for (const name of [
      "a.mp4",
      "b.MKV",
      "notes.txt",
      "x.tar.gz",
      "photo.jpeg",
      "no-extension",
      ".hidden",
      "c.webp",
      "d.flac",
      "e.unknownext",
    ])
      expect(shim.lookup(name), name).toBe(lookup(name));
  });
});
