import { crc32, createDeflate } from "node:zlib";

/** One PNG chunk: length, type, data, CRC. */
function chunk(type: string, data: Buffer): Buffer {
  const body = Buffer.concat([Buffer.from(type, "latin1"), data]);
  const head = Buffer.alloc(4);
  head.writeUInt32BE(data.length);
  const tail = Buffer.alloc(4);
  tail.writeUInt32BE(crc32(body) >>> 0);
  return Buffer.concat([head, body, tail]);
}

/** Adam7's seven passes: first column and row, column and row steps. */
const ADAM7 = [
  [0, 0, 8, 8],
  [4, 0, 8, 8],
  [0, 4, 4, 8],
  [2, 0, 4, 4],
  [0, 2, 2, 4],
  [1, 0, 2, 2],
  [0, 1, 1, 2],
] as const;

/**
 * A crafted PNG that is cheap to send and costly to decode: 10,000 × 9,999
 * pixels (just under the 100-megapixel guard), interlaced (libvips must
 * decode it whole before it can shrink it) and every row Paeth-filtered (the
 * slowest filter to undo), of one colour, so it deflates to ~300 KiB. A
 * thumbnail of it keeps libvips busy for seconds (~4 s on a test VM).
 */
export async function slowPng(): Promise<Buffer> {
  const width = 10_000;
  const height = 9_999;
  const deflate = createDeflate({ level: 6 });
  const out: Buffer[] = [];
  deflate.on("data", (d: Buffer) => out.push(d));
  const ended = new Promise((resolve, reject) => deflate.on("end", resolve).on("error", reject));
  const write = (b: Buffer) =>
    new Promise<void>((resolve) => (deflate.write(b) ? resolve() : deflate.once("drain", resolve)));
  for (const [x0, y0, dx, dy] of ADAM7) {
    const w = Math.ceil((width - x0) / dx);
    const h = Math.ceil((height - y0) / dy);
    const row = Buffer.alloc(1 + w * 3);
    row[0] = 4; // Paeth
    const rows = Buffer.concat(Array(Math.min(h, 512)).fill(row));
    for (let done = 0; done < h; done += 512)
      await write(rows.subarray(0, Math.min(512, h - done) * row.length));
  }
  deflate.end();
  await ended;
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr.set([8, 2, 0, 0, 1], 8); // 8-bit RGB, deflate, adaptive filters, Adam7
  return Buffer.concat([
    Buffer.from([137, 80, 78, 71, 13, 10, 26, 10]),
    chunk("IHDR", ihdr),
    chunk("IDAT", Buffer.concat(out)),
    chunk("IEND", Buffer.alloc(0)),
  ]);
}
