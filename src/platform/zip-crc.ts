import { createRequire, Module } from "node:module";
import { inSea } from "./sea.ts";

/**
 * yazl computes each zip entry's CRC-32 with buffer-crc32, a JavaScript table
 * loop that ran at ~200 MiB/s here and held zip downloads to a tenth of a
 * plain download's speed. Imported before yazl, this puts crc32-native.cjs
 * (the same API over node:zlib's native crc32) in the module cache where
 * yazl's `require("buffer-crc32")` resolves. The single executable gets the
 * same file through an esbuild alias (scripts/build.ts), where this finds no
 * yazl on disk and does nothing.
 */
function preferNativeCrc32(): void {
  // The single executable has it through the build's alias; its createRequire would find a
  // checkout's node_modules when the binary sits in one (build/attic) and fail on the .cjs.
  if (inSea()) return;
  const require = createRequire(import.meta.url);
  let target: string;
  try {
    target = createRequire(require.resolve("yazl")).resolve("buffer-crc32");
  } catch {
    return;
  }
  const shim = new Module(target);
  shim.exports = require("./crc32-native.cjs");
  shim.loaded = true;
  shim.filename = target;
  require.cache[target] = shim;
}

preferNativeCrc32();
