/**
 * Keys remembered for `ttlMs`, at most `max` of them (the oldest go first):
 * for "this password was verified a moment ago" caches, so an Argon2 check
 * is not paid on every request of a client that resends its credentials.
 * Callers key by a hash that includes the stored password hash, so a change
 * of password stops matching at once.
 */
export class ExpiringSet {
  private readonly until = new Map<string, number>();
  private readonly ttlMs: number;
  private readonly max: number;

  constructor(ttlMs: number, max = 10_000) {
    this.ttlMs = ttlMs;
    this.max = max;
  }

  has(key: string): boolean {
    const t = this.until.get(key);
    if (t === undefined) return false;
    if (t > Date.now()) return true;
    this.until.delete(key);
    return false;
  }

  add(key: string): void {
    if (this.until.size >= this.max) this.until.delete(this.until.keys().next().value!);
    this.until.set(key, Date.now() + this.ttlMs);
  }
}
