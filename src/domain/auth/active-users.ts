/**
 * Distinct users seen within a sliding window (15 minutes by default), for
 * the `attic_active_users` gauge. `touch` is O(1) on the request path: the Map
 * keeps users in order of last sight (touching re-inserts), so counting only
 * drops expired entries from the front.
 */
export class ActiveUsers {
  private readonly seen = new Map<string, number>();
  private readonly windowMs: number;
  private readonly now: () => number;

  constructor(windowMs = 15 * 60_000, now: () => number = Date.now) {
    this.windowMs = windowMs;
    this.now = now;
  }

  touch(userId: string): void {
    this.seen.delete(userId);
    this.seen.set(userId, this.now());
  }

  /** Users seen within the window. */
  count(): number {
    const cutoff = this.now() - this.windowMs;
    for (const [id, at] of this.seen) {
      if (at > cutoff) break;
      this.seen.delete(id);
    }
    return this.seen.size;
  }
}
