import { randomUUID } from "node:crypto";

/** One WebDAV write lock (RFC 4918 §6). */
export interface DavLock {
  token: string;
  /** The locked resource's path ("/a/b"; "" is the root). */
  root: string;
  depth: "0" | "infinity";
  scope: "exclusive" | "shared";
  /** The client's <owner> element, as XML, echoed back in lockdiscovery. */
  owner: string;
  timeoutSeconds: number;
  expiresAt: number;
  userId: string;
  organizationId: string;
}

/** Longest lock a client may ask for, and what "Infinite" means here. */
export const MAX_LOCK_SECONDS = 3600;
/** Most live locks one organization may hold: locks are memory. */
const MAX_LOCKS_PER_ORG = 10_000;

const within = (root: string, path: string) => path === root || path.startsWith(`${root}/`) || root === "";

/**
 * Write locks, in memory (they last minutes and a restart ends them, as with
 * most servers; clients refresh or re-lock). Paths are per organization.
 */
export class LockTable {
  private readonly locks = new Map<string, DavLock>();
  private readonly now: () => number;
  constructor(now: () => number = Date.now) {
    this.now = now;
  }

  private live(): DavLock[] {
    const t = this.now();
    const out: DavLock[] = [];
    for (const [k, l] of this.locks) {
      if (l.expiresAt <= t) this.locks.delete(k);
      else out.push(l);
    }
    return out;
  }

  /** Locks whose scope includes `path`: on it, or depth-infinity on an ancestor. */
  covering(org: string, path: string): DavLock[] {
    return this.live().filter(
      (l) =>
        l.organizationId === org && (l.root === path || (l.depth === "infinity" && within(l.root, path))),
    );
  }

  /** Locks on `path` or anything below it (a delete or move of a collection touches them). */
  under(org: string, path: string): DavLock[] {
    return this.live().filter((l) => l.organizationId === org && within(path, l.root));
  }

  byToken(token: string): DavLock | undefined {
    const l = this.locks.get(token);
    return l && l.expiresAt > this.now() ? l : undefined;
  }

  /** Creates a lock, or undefined when an existing one conflicts. */
  lock(
    org: string,
    userId: string,
    path: string,
    o: { depth: "0" | "infinity"; scope: "exclusive" | "shared"; owner: string; timeoutSeconds: number },
  ): DavLock | undefined {
    const around = this.covering(org, path);
    const below = o.depth === "infinity" ? this.under(org, path) : [];
    const others = [...around, ...below];
    if (others.some((l) => l.scope === "exclusive" || o.scope === "exclusive")) return undefined;
    if (this.live().filter((l) => l.organizationId === org).length >= MAX_LOCKS_PER_ORG) return undefined;
    const seconds = Math.min(Math.max(1, o.timeoutSeconds), MAX_LOCK_SECONDS);
    const lock: DavLock = {
      token: `opaquelocktoken:${randomUUID()}`,
      root: path,
      depth: o.depth,
      scope: o.scope,
      owner: o.owner,
      timeoutSeconds: seconds,
      expiresAt: this.now() + seconds * 1000,
      userId,
      organizationId: org,
    };
    this.locks.set(lock.token, lock);
    return lock;
  }

  refresh(lock: DavLock, timeoutSeconds: number): DavLock {
    lock.timeoutSeconds = Math.min(Math.max(1, timeoutSeconds), MAX_LOCK_SECONDS);
    lock.expiresAt = this.now() + lock.timeoutSeconds * 1000;
    return lock;
  }

  unlock(token: string): boolean {
    return this.locks.delete(token);
  }

  /** Drops the locks on `path` and below (after a delete or a move away). */
  dropUnder(org: string, path: string): void {
    for (const l of this.under(org, path)) this.locks.delete(l.token);
  }
}

/** Parses `Timeout: Second-600, Infinite`; the first usable value. */
export function timeoutOf(header: string | undefined): number {
  for (const part of (header ?? "").split(",")) {
    const t = part.trim();
    if (/^infinite$/i.test(t)) return MAX_LOCK_SECONDS;
    const m = /^second-(\d+)$/i.exec(t);
    if (m) return Number(m[1]);
  }
  return MAX_LOCK_SECONDS;
}
