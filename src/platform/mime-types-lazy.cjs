"use strict";
// The single executable's "mime-types" (an esbuild alias in scripts/build.ts):
// the same lookup(), with mime-types and mime-db's ~2,500 types evaluated by
// the first call instead of at start (~8-10 ms of start-up). Attic uses only
// lookup(); anything else fails loudly rather than differ. The path is
// relative so the alias does not apply to it.
let real;

exports.lookup = function lookup(path) {
  real ??= require("../../node_modules/mime-types/index.js");
  return real.lookup(path);
};
