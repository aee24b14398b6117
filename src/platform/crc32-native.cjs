"use strict";
// Attic's stand-in for buffer-crc32 (see zip-crc.ts): the same API
// (crc32(buf, previous) -> 4-byte Buffer, .signed, .unsigned), computed by
// node:zlib's native crc32 instead of a JavaScript table loop.
const { crc32: native } = require("node:zlib");

function start(previous) {
  if (previous === undefined || previous === null) return 0;
  if (Buffer.isBuffer(previous)) return previous.readUInt32BE(0);
  return previous >>> 0;
}

function unsigned(buf, previous) {
  return native(Buffer.isBuffer(buf) ? buf : Buffer.from(buf), start(previous)) >>> 0;
}

function crc32(buf, previous) {
  const out = Buffer.alloc(4);
  out.writeUInt32BE(unsigned(buf, previous), 0);
  return out;
}
crc32.unsigned = unsigned;
crc32.signed = (buf, previous) => unsigned(buf, previous) | 0;

module.exports = crc32;
