/**
 * The platform's own limit on the file paths: a bare Node `http` server that
 * checks a bearer header and answers GET /<name> under $ROOT with one
 * `fs.read` (a single `Range: bytes=a-b` gives 206), or, past 8 MiB, with
 * the file streamed as Node streams it (`createReadStream(...).pipe(res)`, 256 KiB
 * reads, as Attic's), run by the same Node and pinned like Attic. It shows
 * how much of a gap is Attic's and how much Node's. Listens on
 * 127.0.0.1:$PORT.
 */
import { closeSync, createReadStream, fstatSync, openSync, read } from "node:fs";
import http from "node:http";
import { join } from "node:path";
import { REF_TOKEN } from "./hono-ref.ts";

const expected = `Bearer ${REF_TOKEN}`;
const root = process.env.ROOT ?? ".";
/** Larger answers are streamed, not read into one buffer. */
const STREAM_PAST = 8 * 1024 * 1024;
const fds = new Map<string, { fd: number; size: number }>();

function fileOf(name: string) {
  let f = fds.get(name);
  if (!f) {
    const fd = openSync(join(root, name.replace(/[^\w.-]/g, "")), "r");
    f = { fd, size: fstatSync(fd).size };
    fds.set(name, f);
  }
  return f;
}

http
  .createServer((req, res) => {
    if (req.headers.authorization !== expected) return void res.writeHead(401).end();
    let f: { fd: number; size: number };
    try {
      f = fileOf((req.url ?? "/").slice(1));
    } catch {
      return void res.writeHead(404).end();
    }
    const m = /^bytes=(\d+)-(\d+)$/.exec(req.headers.range ?? "");
    const start = m ? Number(m[1]) : 0;
    const end = m ? Math.min(Number(m[2]), f.size - 1) : f.size - 1;
    if (end - start + 1 > STREAM_PAST) {
      res.writeHead(m ? 206 : 200, {
        "content-type": "application/octet-stream",
        "content-length": end - start + 1,
        ...(m ? { "content-range": `bytes ${start}-${end}/${f.size}` } : {}),
      });
      createReadStream("", { fd: f.fd, start, end, autoClose: false, highWaterMark: 256 * 1024 }).pipe(res);
      return;
    }
    const buf = Buffer.allocUnsafe(end - start + 1);
    read(f.fd, buf, 0, buf.length, start, (err) => {
      if (err) return void res.writeHead(500).end();
      const headers: Record<string, string | number> = {
        "content-type": "application/octet-stream",
        "content-length": buf.length,
      };
      if (m) headers["content-range"] = `bytes ${start}-${end}/${f.size}`;
      res.writeHead(m ? 206 : 200, headers).end(buf);
    });
  })
  .listen(Number(process.env.PORT), "127.0.0.1");

process.on("SIGTERM", () => {
  for (const f of fds.values()) closeSync(f.fd);
  process.exit(0);
});
