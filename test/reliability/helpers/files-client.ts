/** Minimal REST client for the reliability tests (real HTTP, no shortcuts into the server). */
export interface Client {
  url: string;
  token: string;
  json(
    method: string,
    path: string,
    body?: unknown,
    timeoutMs?: number,
  ): Promise<{ status: number; body: unknown }>;
  upload(name: string, data: Uint8Array, parentId?: string): Promise<{ status: number; body: unknown }>;
  download(id: string): Promise<{ status: number; bytes: Uint8Array }>;
}

/** The response body as JSON, or as text when it is not JSON. */
async function bodyOf(res: Response): Promise<unknown> {
  const text = await res.text();
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** A client bound to one server and token; every call is bounded by a timeout (a hang fails the test). */
export function client(url: string, token: string): Client {
  const auth = { authorization: `Bearer ${token}` };
  return {
    url,
    token,
    async json(method, path, body, timeoutMs = 30_000) {
      const res = await fetch(url + path, {
        method,
        headers: body === undefined ? auth : { ...auth, "content-type": "application/json" },
        body: body === undefined ? undefined : JSON.stringify(body),
        signal: AbortSignal.timeout(timeoutMs),
      });
      return { status: res.status, body: await bodyOf(res) };
    },
    async upload(name, data, parentId) {
      const form = new FormData();
      form.append("file", new Blob([data as Uint8Array<ArrayBuffer>]), name);
      if (parentId) form.append("parent_id", parentId);
      const res = await fetch(`${url}/api/v1/files`, {
        method: "POST",
        headers: auth,
        body: form,
        signal: AbortSignal.timeout(60_000),
      });
      return { status: res.status, body: await bodyOf(res) };
    },
    async download(id) {
      const res = await fetch(`${url}/api/v1/files/${id}/download`, {
        headers: auth,
        signal: AbortSignal.timeout(60_000),
      });
      return { status: res.status, bytes: new Uint8Array(await res.arrayBuffer()) };
    },
  };
}

/** Uploads a small probe file and fails the test unless it is stored (201): an upload regression must fail these suites, never skip them. */
export async function expectUploadWorks(c: Client, name = "probe.txt"): Promise<void> {
  const r = await c.upload(name, new TextEncoder().encode("probe"));
  if (r.status !== 201) throw new Error(`upload of ${name} answered ${r.status}, expected 201`);
}
