import type { Profile, StreamToken, TokenPair, User } from "./types.ts";

/** An error answered by the API: `{error: {code, message, details}}`, or a network failure (status 0). */
export class ApiError extends Error {
  readonly status: number;
  readonly code: string;
  readonly details?: Record<string, unknown>;
  constructor(status: number, code: string, message: string, details?: Record<string, unknown>) {
    super(message);
    this.status = status;
    this.code = code;
    if (details) this.details = details;
  }
}

export interface Session {
  access_token: string;
  refresh_token: string;
  /** The sign-in answer's user, completed by the profile once it is fetched. */
  user?: TokenPair["user"] & Partial<Profile>;
  /** From the profile: the server refuses everything else until it is changed. */
  must_change_password?: boolean;
}

const KEY = "attic.session";
export const API = "/api/v1";

type Listener = (s: Session | undefined) => void;
const listeners = new Set<Listener>();
let session: Session | undefined = load();
let refreshing: Promise<boolean> | undefined;

function load(): Session | undefined {
  try {
    const raw = localStorage.getItem(KEY);
    return raw ? (JSON.parse(raw) as Session) : undefined;
  } catch {
    return undefined;
  }
}

function save(s: Session | undefined): void {
  session = s;
  if (s) localStorage.setItem(KEY, JSON.stringify(s));
  else localStorage.removeItem(KEY);
  for (const l of listeners) l(s);
}

// Another tab refreshed or signed out: follow it, so two tabs never spend one refresh token twice.
window.addEventListener("storage", (e) => {
  if (e.key !== KEY) return;
  session = load();
  for (const l of listeners) l(session);
});

export function currentSession(): Session | undefined {
  return session;
}

export function onSession(l: Listener): () => void {
  listeners.add(l);
  return () => listeners.delete(l);
}

/** Claims of the access token (permissions, username); the server checks them, the UI only adapts. */
export function claims(): { sub?: string; username?: string; permissions?: string[]; exp?: number } {
  const t = session?.access_token.split(".")[1];
  if (!t) return {};
  try {
    return JSON.parse(atob(t.replace(/-/g, "+").replace(/_/g, "/")));
  } catch {
    return {};
  }
}

/** True when the signed-in user holds `perm` (`*` wildcards as on the server). */
/** The caller's personal folder ("My files"), once the profile has been read. */
export function homeId(): string | undefined {
  return session?.user?.home_directory_id;
}

export function can(perm: string): boolean {
  const [r, a] = perm.split(":");
  return (claims().permissions ?? []).some((g) => {
    const [gr, ga] = g.split(":");
    return (gr === r || gr === "*") && (ga === a || ga === "*");
  });
}

export function setSession(pair: TokenPair, user?: User): void {
  save({
    access_token: pair.access_token,
    refresh_token: pair.refresh_token,
    user: pair.user ?? user ?? session?.user,
    must_change_password: user?.must_change_password ?? session?.must_change_password,
  });
}

export function updateSession(patch: Partial<Session>): void {
  if (session) save({ ...session, ...patch });
}

export function clearSession(): void {
  save(undefined);
}

/** Renews the access token with the refresh token (once at a time); false when the session is over. */
export function refresh(): Promise<boolean> {
  refreshing ??= (async () => {
    const stale = session;
    const latest = load();
    // A sibling tab already renewed: adopt its tokens instead of reusing ours.
    if (latest && stale && latest.refresh_token !== stale.refresh_token) {
      session = latest;
      return true;
    }
    if (!stale) return false;
    try {
      const res = await fetch(`${API}/auth/refresh`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ refresh_token: stale.refresh_token }),
      });
      if (res.ok) {
        setSession((await res.json()) as TokenPair);
        return true;
      }
      if (res.status === 401 || res.status === 400) clearSession();
      return false;
    } catch {
      return false;
    }
  })().finally(() => {
    refreshing = undefined;
  });
  return refreshing;
}

/** Seconds left on the access token. */
export function accessTtl(): number {
  const exp = claims().exp;
  return exp ? exp - Date.now() / 1000 : 0;
}

/** A usable access token: renewed first when it is about to expire. */
export async function freshToken(): Promise<string | undefined> {
  if (session && accessTtl() < 30) await refresh();
  return session?.access_token;
}

export interface RequestOptions {
  body?: unknown;
  query?: Record<string, string | number | boolean | undefined | null>;
  signal?: AbortSignal;
  headers?: Record<string, string>;
  keepalive?: boolean;
}

function url(path: string, query?: RequestOptions["query"]): string {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(query ?? {}))
    if (v !== undefined && v !== null && v !== "") q.set(k, String(v));
  const s = q.toString();
  return `${API}${path}${s ? `?${s}` : ""}`;
}

/** Turns a failed response into an ApiError with the server's code and message. */
export async function errorOf(res: Response): Promise<ApiError> {
  try {
    const body = (await res.json()) as {
      error?: { code?: string; message?: string; details?: Record<string, unknown> };
    };
    const e = body.error ?? {};
    return new ApiError(res.status, e.code ?? `HTTP_${res.status}`, e.message ?? res.statusText, e.details);
  } catch {
    return new ApiError(res.status, `HTTP_${res.status}`, res.statusText || "request failed");
  }
}

/** An authenticated fetch of the API that renews the access token once on 401. */
export async function raw(method: string, path: string, o: RequestOptions = {}): Promise<Response> {
  const send = async () => {
    const token = await freshToken();
    const headers: Record<string, string> = { ...o.headers };
    if (token) headers.authorization = `Bearer ${token}`;
    let body: BodyInit | undefined;
    if (o.body instanceof FormData || o.body instanceof Blob) body = o.body;
    else if (o.body !== undefined) {
      body = JSON.stringify(o.body);
      headers["content-type"] = "application/json";
    }
    try {
      return await fetch(url(path, o.query), {
        method,
        headers,
        body,
        signal: o.signal,
        keepalive: o.keepalive,
      });
    } catch (err) {
      if ((err as Error).name === "AbortError") throw err;
      throw new ApiError(0, "NETWORK", "The server cannot be reached. Check your connection.");
    }
  };
  let res = await send();
  if (res.status === 401 && session && (await refresh())) res = await send();
  if (res.status === 401 && !path.startsWith("/auth/login")) clearSession();
  return res;
}

/** JSON request; throws ApiError on any non-2xx answer. */
export async function api<T>(method: string, path: string, o: RequestOptions = {}): Promise<T> {
  const res = await raw(method, path, o);
  if (!res.ok) throw await errorOf(res);
  if (res.status === 204) return undefined as T;
  const text = await res.text();
  return (text ? JSON.parse(text) : undefined) as T;
}

/**
 * A link that downloads a folder as one zip, or only `ids` of its items (a
 * stream token for the folder: no headers needed).
 */
export async function zipUrl(dirId: string, ids?: readonly string[]): Promise<string> {
  const { token } = await api<StreamToken>("POST", `/files/${encodeURIComponent(dirId)}/stream-token`);
  const only = ids ? `&ids=${ids.map(encodeURIComponent).join(",")}` : "";
  return `${API}/directories/${encodeURIComponent(dirId)}/zip?st=${encodeURIComponent(token)}${only}`;
}

export async function streamUrl(fileId: string, kind: "stream" | "download"): Promise<string> {
  const { token } = await api<StreamToken>("POST", `/files/${encodeURIComponent(fileId)}/stream-token`);
  return `${API}/files/${encodeURIComponent(fileId)}/${kind}?st=${encodeURIComponent(token)}`;
}
