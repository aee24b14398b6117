/**
 * Writes on the server's connection announced to the scan writer's thread
 * (domain/watched/scan-writer-worker.ts), so that they never wait out one
 * of its transactions.
 *
 * SQLite has one write lock. A scan's thread holds it for transactions of
 * 30–120 ms, back to back; a write on the server's connection meanwhile (an
 * upload, a login's refresh token, a saved playback position) waited in
 * better-sqlite3's synchronous busy handler, and the event loop, every
 * other request with it, waited too: during a 200k-file scan with one
 * write every 20 ms, `/health` p50 40 ms and p99 112 ms. Every write
 * statement of the server's connection (db/client.ts) and every immediate
 * transaction counts itself in a shared counter while it runs; the thread
 * reads it after each row it writes and, when it is not zero, commits at
 * once and lets the server's write through before it begins again.
 */

const signals = new WeakMap<object, Int32Array>();

/** The counter of writes running on `connection` (created on first use), shared with the scan writer's thread. */
export function writeSignalOf(connection: object): Int32Array {
  let signal = signals.get(connection);
  if (!signal) signals.set(connection, (signal = new Int32Array(new SharedArrayBuffer(4))));
  return signal;
}

/** Runs `write` counted in `signal`, and wakes the thread waiting for the count to fall back to zero. */
export function announcedWrite<T>(signal: Int32Array, write: () => T): T {
  Atomics.add(signal, 0, 1);
  try {
    return write();
  } finally {
    if (Atomics.sub(signal, 0, 1) === 1) Atomics.notify(signal, 0);
  }
}

/**
 * On the writer's thread: waits while some write is announced in `signal`,
 * at most `maxMs` (the server's write may be waiting for a lock of its own).
 */
export function waitForAnnouncedWrites(signal: Int32Array, maxMs: number): void {
  const until = performance.now() + maxMs;
  for (let n = Atomics.load(signal, 0); n > 0; n = Atomics.load(signal, 0)) {
    const left = until - performance.now();
    if (left <= 0) return;
    Atomics.wait(signal, 0, n, left);
  }
}
