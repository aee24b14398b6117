import { createGzip } from "node:zlib";

/**
 * gzip of `bytes` zero bytes, built by streaming (never holds the inflated
 * size): about 1/1000 of it, a classic decompression bomb.
 */
export async function gzipOfZeros(bytes: number): Promise<Buffer> {
  const gz = createGzip({ level: 9 });
  const parts: Buffer[] = [];
  gz.on("data", (d: Buffer) => parts.push(d));
  const done = new Promise<void>((r, f) => {
    gz.on("end", () => r());
    gz.on("error", f);
  });
  const chunk = Buffer.alloc(1024 * 1024);
  for (let left = bytes; left > 0; left -= chunk.length) {
    if (!gz.write(left >= chunk.length ? chunk : chunk.subarray(0, left))) {
      await new Promise((r) => gz.once("drain", r));
    }
  }
  gz.end();
  await done;
  return Buffer.concat(parts);
}

/** Protobuf varint encoding of a non-negative integer. */
export function varint(n: number): Buffer {
  const out: number[] = [];
  while (n > 0x7f) {
    out.push((n & 0x7f) | 0x80);
    n = Math.floor(n / 128);
  }
  out.push(n);
  return Buffer.from(out);
}

/**
 * A google.protobuf.Value nested `depth` times through list_value
 * (Value{list_value: ListValue{values: [Value{…}]}}), in binary, built
 * outside-in in linear time: a recursion bomb of a few hundred KiB.
 */
export function nestedStructValue(depth: number): Buffer {
  const inner = Buffer.from([0x08, 0x00]); // Value{null_value: NULL_VALUE}
  const valueSizes = new Array<number>(depth + 1);
  valueSizes[depth] = inner.length;
  for (let i = depth - 1; i >= 0; i--) {
    const m = valueSizes[i + 1]!;
    const list = 1 + varint(m).length + m; // ListValue{values: [Value]}
    valueSizes[i] = 1 + varint(list).length + list; // Value{list_value: ListValue}
  }
  const parts: Buffer[] = [];
  for (let i = 0; i < depth; i++) {
    const m = valueSizes[i + 1]!;
    const list = 1 + varint(m).length + m;
    parts.push(Buffer.from([0x32]), varint(list), Buffer.from([0x0a]), varint(m));
  }
  parts.push(inner);
  return Buffer.concat(parts);
}

/** UpdateUserSettingsRequest{settings: Struct{fields: {"a": value}}} in protobuf binary. */
export function settingsWithValue(value: Buffer): Buffer {
  const entry = Buffer.concat([Buffer.from([0x0a, 0x01, 0x61, 0x12]), varint(value.length), value]);
  const struct = Buffer.concat([Buffer.from([0x0a]), varint(entry.length), entry]);
  return Buffer.concat([Buffer.from([0x0a]), varint(struct.length), struct]);
}
