import * as tus from "tus-js-client";
import { API, ApiError, api, freshToken, refresh } from "./api.ts";
import { listChildren } from "./files.ts";
import { numberedName } from "./format.ts";
import type { Directory, FileRec } from "./types.ts";

export type UploadStatus = "queued" | "uploading" | "done" | "error" | "conflict" | "canceled" | "skipped";

/** One file of the upload queue, as the panel shows it. */
export interface UploadItem {
  id: number;
  file: File;
  /** Name it is stored under (changes when renamed after a clash). */
  name: string;
  /** Target folder (undefined = top of the tree) and the sub-folders to create under it. */
  parentId: string | undefined;
  dirs: string[];
  loaded: number;
  status: UploadStatus;
  error?: string;
  xhr?: XMLHttpRequest;
  /** Stops a resumable upload (and ends it on the server). */
  abort?: () => void;
}

const CONCURRENCY = 3;
let items: UploadItem[] = [];
let seq = 0;
const subs = new Set<(items: UploadItem[]) => void>();
const doneSubs = new Set<(parentId: string | undefined) => void>();
const dirCache = new Map<string, Promise<string>>();

function changed(): void {
  items = [...items];
  for (const s of subs) s(items);
}

export function uploads(): UploadItem[] {
  return items;
}

export function onUploads(s: (items: UploadItem[]) => void): () => void {
  subs.add(s);
  return () => subs.delete(s);
}

/** Called with the folder a file landed in, so the browser can refresh it. */
export function onUploaded(s: (parentId: string | undefined) => void): () => void {
  doneSubs.add(s);
  return () => doneSubs.delete(s);
}

/** Total bytes sent over bytes to send, counting only files still meant to go. */
export function totals(list: UploadItem[]): { loaded: number; total: number; active: number } {
  let loaded = 0;
  let total = 0;
  let active = 0;
  for (const i of list) {
    if (i.status === "canceled" || i.status === "skipped") continue;
    total += i.file.size;
    loaded += i.status === "done" ? i.file.size : i.loaded;
    if (i.status === "queued" || i.status === "uploading") active++;
  }
  return { loaded, total, active };
}

/** Queues files; `relPath` ("a/b/c.txt") recreates the folders of a dropped or picked folder. */
export function enqueue(entries: { file: File; relPath?: string }[], parentId: string | undefined): void {
  for (const { file, relPath } of entries) {
    const parts = (relPath ?? file.name).split("/").filter(Boolean);
    const name = parts.pop() ?? file.name;
    items.push({ id: ++seq, file, name, parentId, dirs: parts, loaded: 0, status: "queued" });
  }
  changed();
  pump();
}

export function cancel(id: number): void {
  const it = items.find((i) => i.id === id);
  if (!it || it.status === "done") return;
  it.xhr?.abort();
  it.abort?.();
  it.status = "canceled";
  changed();
  pump();
}

export function cancelAll(): void {
  for (const i of items) if (i.status === "queued" || i.status === "uploading") cancel(i.id);
}

export function clearFinished(): void {
  items = items.filter((i) => i.status === "queued" || i.status === "uploading" || i.status === "conflict");
  changed();
}

/** Resolves a name clash: store under a free numbered name, or leave the existing file alone. */
export function resolveConflict(id: number, choice: "rename" | "skip"): void {
  const it = items.find((i) => i.id === id);
  if (it?.status !== "conflict") return;
  if (choice === "skip") it.status = "skipped";
  else {
    const m = /^(.*) \((\d+)\)(\.[^.]*)?$/.exec(it.name);
    const base = m ? `${m[1]}${m[3] ?? ""}` : it.name;
    it.name = numberedName(base, m ? Number(m[2]) + 1 : 1);
    it.status = "queued";
    it.loaded = 0;
  }
  changed();
  pump();
}

export function resolveAllConflicts(choice: "rename" | "skip"): void {
  for (const i of items.filter((x) => x.status === "conflict")) resolveConflict(i.id, choice);
}

function pump(): void {
  const running = items.filter((i) => i.status === "uploading").length;
  const next = items.filter((i) => i.status === "queued").slice(0, CONCURRENCY - running);
  for (const it of next) void run(it);
}

async function run(it: UploadItem): Promise<void> {
  it.status = "uploading";
  changed();
  try {
    const parent = await ensureDirs(it.parentId, it.dirs);
    if ((it.status as UploadStatus) === "canceled") return;
    const viaTus = it.file.size >= RESUMABLE_FROM;
    let res = viaTus ? await sendResumable(it, parent) : await send(it, parent);
    if (!viaTus && res.status === 401 && (await refresh())) res = await send(it, parent);
    finish(it, res, parent);
  } catch (err) {
    if ((it.status as UploadStatus) !== "canceled") {
      it.status = "error";
      it.error = err instanceof Error ? err.message : String(err);
    }
  }
  changed();
  pump();
}

function finish(it: UploadItem, res: { status: number; body: string }, parent: string | undefined): void {
  if (res.status === 0) {
    if (it.status !== "canceled") Object.assign(it, { status: "error", error: "Connection lost" });
    return;
  }
  if (res.status >= 200 && res.status < 300) {
    it.status = "done";
    for (const s of doneSubs) s(parent);
    return;
  }
  let message = `Upload failed (HTTP ${res.status})`;
  try {
    message = (JSON.parse(res.body) as { error: { message: string } }).error.message;
  } catch {}
  if (res.status === 409)
    Object.assign(it, { status: "conflict", error: `“${it.name}” already exists here` });
  else if (res.status === 413)
    Object.assign(it, { status: "error", error: `Too large for this server: ${message}` });
  else Object.assign(it, { status: "error", error: message });
}

/** Files this large go through tus (/api/v1/uploads): chunked, resumed after a dropped link or a reload. */
export const RESUMABLE_FROM = 32 * 1024 * 1024;
/** How many times a resumable upload starts again after the link dropped, before it gives up. */
const MAX_RESUMES = 20;
/** One chunk per PATCH: below the body limits proxies commonly have. */
const TUS_CHUNK = 16 * 1024 * 1024;

/**
 * A resumable upload (tus-js-client): retries with backoff through network
 * drops, and finds its own unfinished upload again after a page reload (the
 * client keeps its URL in localStorage), so progress goes on from the offset
 * the server has. Resolves like `send` (the server's status and body).
 */
async function sendResumable(
  it: UploadItem,
  parentId: string | undefined,
): Promise<{ status: number; body: string }> {
  return new Promise((resolve) => {
    let fileId = "";
    let resumes = 0;
    const upload = new tus.Upload(it.file, {
      endpoint: `${API}/uploads`,
      chunkSize: TUS_CHUNK,
      retryDelays: [0, 1000, 3000, 5000, 10_000, 20_000, 30_000],
      metadata: { filename: it.name, ...(parentId ? { parent_id: parentId } : {}) },
      removeFingerprintOnSuccess: true,
      async onBeforeRequest(req) {
        const token = await freshToken();
        if (token) req.setHeader("Authorization", `Bearer ${token}`);
      },
      onAfterResponse(_req, res) {
        fileId = res.getHeader("Upload-File-Id") ?? fileId;
      },
      onProgress(sent) {
        it.loaded = Math.min(sent, it.file.size);
        changed();
      },
      onSuccess() {
        resolve({ status: 201, body: JSON.stringify({ id: fileId }) });
      },
      onError(err) {
        const res = (err as tus.DetailedError).originalResponse;
        // The link went away (tus-js-client does not retry while the browser says it is
        // offline): wait until it is back, then go on from the offset the server has.
        if (!res && it.status === "uploading" && resumes++ < MAX_RESUMES) {
          const again = () => {
            window.removeEventListener("online", again);
            clearTimeout(timer);
            if (it.status === "uploading") upload.start();
          };
          window.addEventListener("online", again);
          const timer = setTimeout(again, navigator.onLine ? 3000 : 60_000);
          return;
        }
        resolve({ status: res?.getStatus() ?? 0, body: res?.getBody() ?? "" });
      },
    });
    it.abort = () => void upload.abort(true);
    upload.findPreviousUploads().then(
      (previous) => {
        if (previous[0]) upload.resumeFromPreviousUpload(previous[0]);
        upload.start();
      },
      () => upload.start(),
    );
  });
}

/** One multipart POST /files with upload progress; resolves with the status (0 on network failure or abort). */
async function send(it: UploadItem, parentId: string | undefined): Promise<{ status: number; body: string }> {
  const token = await freshToken();
  return new Promise((resolve) => {
    const xhr = new XMLHttpRequest();
    it.xhr = xhr;
    const form = new FormData();
    // parent_id goes first: the server streams the body and must know the folder before the bytes.
    if (parentId) form.append("parent_id", parentId);
    form.append("file", it.file, it.name);
    xhr.open("POST", `${API}/files`);
    if (token) xhr.setRequestHeader("Authorization", `Bearer ${token}`);
    xhr.upload.onprogress = (e) => {
      it.loaded = Math.min(e.loaded, it.file.size);
      changed();
    };
    xhr.onload = () => resolve({ status: xhr.status, body: xhr.responseText });
    xhr.onerror = () => resolve({ status: 0, body: "" });
    xhr.onabort = () => resolve({ status: 0, body: "" });
    xhr.send(form);
  });
}

/** Creates (or finds) the nested folders `dirs` under `parentId`; one request per folder however many files share it. */
function ensureDirs(parentId: string | undefined, dirs: string[]): Promise<string | undefined> {
  let p: Promise<string | undefined> = Promise.resolve(parentId);
  let key = parentId ?? "";
  for (const name of dirs) {
    key = `${key}/${name}`;
    const k = key;
    const cached = dirCache.get(k);
    if (cached) {
      p = cached;
      continue;
    }
    const next = p.then((parent) => makeDir(parent, name));
    next.catch(() => dirCache.delete(k));
    dirCache.set(k, next);
    p = next;
  }
  return p;
}

async function makeDir(parentId: string | undefined, name: string): Promise<string> {
  try {
    const d = await api<Directory>("POST", "/directories", {
      body: { name, parent_id: parentId },
    });
    // The new folder shows up in the folder on screen at once, before its files finish.
    for (const s of doneSubs) s(parentId);
    return d.file.id;
  } catch (err) {
    if (!(err instanceof ApiError) || err.status !== 409) throw err;
    const existing = await findChild(parentId, name);
    if (existing?.type !== "directory")
      throw new ApiError(409, "ERR_CONFLICT", `a file named “${name}” is in the way`);
    return existing.id;
  }
}

async function findChild(parentId: string | undefined, name: string): Promise<FileRec | undefined> {
  for (let offset = 0; ; offset += 500) {
    const page = await listChildren(parentId, 500, offset);
    const hit = page.files.find((f) => f.name === name);
    if (hit || page.files.length === 0 || offset + page.files.length >= page.total) return hit;
  }
}
