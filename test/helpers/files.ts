import { request } from "node:http";
import type { ApiResponse, TestServer } from "./server.ts";

/** Uploads `content` as `name` through POST /api/v1/files (multipart, fields before the file). */
export async function upload(
  s: TestServer,
  token: string,
  name: string,
  content: string | Uint8Array,
  opts: {
    parentId?: string;
    fields?: Record<string, string>;
    headers?: Record<string, string>;
    type?: string;
  } = {},
): Promise<ApiResponse> {
  const form = new FormData();
  if (opts.parentId) form.set("parent_id", opts.parentId);
  for (const [k, v] of Object.entries(opts.fields ?? {})) form.set(k, v);
  const bytes = typeof content === "string" ? new TextEncoder().encode(content) : content;
  form.set(
    "file",
    new Blob([bytes as Uint8Array<ArrayBuffer>], { type: opts.type ?? "application/octet-stream" }),
    name,
  );
  return s.api("POST", "/api/v1/files", { token, body: form, headers: opts.headers });
}

/** Creates a directory and returns its File record. */
export async function mkdir(s: TestServer, token: string, name: string, parentId?: string) {
  const r = await s.api("POST", "/api/v1/directories", { token, body: { name, parent_id: parentId } });
  if (r.status !== 201) throw new Error(`mkdir ${name}: ${r.status} ${r.text}`);
  return r.body.file as { id: string; path: string; name: string };
}

/** A raw GET returning status, headers and the body as bytes. */
export async function getBytes(
  s: TestServer,
  token: string,
  path: string,
  headers: Record<string, string> = {},
): Promise<{ status: number; headers: Headers; bytes: Buffer }> {
  const res = await fetch(s.url + path, { headers: { authorization: `Bearer ${token}`, ...headers } });
  return { status: res.status, headers: res.headers, bytes: Buffer.from(await res.arrayBuffer()) };
}

/**
 * Starts a multipart upload over a raw socket, sends the envelope and `sent`
 * bytes of the file, then resolves with a function that destroys the
 * connection mid-body (an aborted upload).
 */
export function startRawUpload(
  url: string,
  token: string,
  name: string,
  sent: Buffer,
  declaredFileBytes: number,
): Promise<{ abort(): void; response: Promise<number> }> {
  const boundary = `----attic${Date.now()}`;
  const head = Buffer.from(
    `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${name}"\r\n` +
      "Content-Type: application/octet-stream\r\n\r\n",
  );
  const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
  const req = request(`${url}/api/v1/files`, {
    method: "POST",
    headers: {
      authorization: `Bearer ${token}`,
      "content-type": `multipart/form-data; boundary=${boundary}`,
      "content-length": String(head.length + declaredFileBytes + tail.length),
    },
  });
  const response = new Promise<number>((resolve) => {
    req.on("response", (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.on("error", () => resolve(0));
  });
  return new Promise((resolve) => {
    req.write(head);
    req.write(sent, () => resolve({ abort: () => req.destroy(), response }));
  });
}
