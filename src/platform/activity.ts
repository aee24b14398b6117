/**
 * When the server last began answering a request: background work (a
 * watched-folder scan's write transactions) takes shorter turns on the event
 * loop while people are using the server, and long, cheaper ones when
 * nobody is.
 */
export interface Activity {
  /** Called as each request arrives. */
  note(): void;
  /** True when a request arrived within the last `withinMs`. */
  busy(withinMs?: number): boolean;
}

/** How long after a request the server still counts as in use. */
const RECENT_MS = 2000;

export function createActivity(now: () => number = () => performance.now()): Activity {
  let last = Number.NEGATIVE_INFINITY;
  return {
    note() {
      last = now();
    },
    busy(withinMs = RECENT_MS) {
      return now() - last < withinMs;
    },
  };
}
