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
 * transaction counts itself in a shared counter (WRITES) while it runs; the
 * thread reads it after each row it writes and, when it is not zero,
 * commits at once and lets the server's write through before it begins
 * again. A write outside a transaction of its own also waits for that
 * commit on the flag the thread keeps (IN_TRANSACTION), woken the moment
 * it ends, instead of in SQLite's busy handler, whose sleeps (1, 2, 5, 10,
 * 15, 20, 25 ms...) overshoot the commit they wait for.
 */

/** Slot of the shared array: the server's writes running or about to. */
export const WRITES = 0;
/** Slot of the shared array: 1 while the scan writer's thread has a transaction open. */
export const IN_TRANSACTION = 1;
/** Longest wait for the thread's commit before the write goes to SQLite's busy handler anyway. */
const MAX_WAIT_MS = 250;

const signals = new WeakMap<object, Int32Array>();

/** The slots shared with the scan writer's thread for `connection` (created on first use). */
export function writeSignalOf(connection: object): Int32Array {
  let signal = signals.get(connection);
  if (!signal) signals.set(connection, (signal = new Int32Array(new SharedArrayBuffer(8))));
  return signal;
}

/**
 * Runs `write` counted in `signal`, and wakes the thread waiting for the
 * count to fall back to zero. `outside` (the connection holds no
 * transaction: it cannot be the one the thread waits for) lets it first
 * wait for the thread's open transaction to end.
 */
export function announcedWrite<T>(signal: Int32Array, write: () => T, outside: boolean): T {
  Atomics.add(signal, WRITES, 1);
  try {
    if (outside && Atomics.load(signal, IN_TRANSACTION) === 1)
      Atomics.wait(signal, IN_TRANSACTION, 1, MAX_WAIT_MS);
    return write();
  } finally {
    if (Atomics.sub(signal, WRITES, 1) === 1) Atomics.notify(signal, WRITES);
  }
}

/** On the writer's thread: whether it has a transaction open (IN_TRANSACTION), waking a write waiting for its end. */
export function markTransaction(signal: Int32Array, open: boolean): void {
  Atomics.store(signal, IN_TRANSACTION, open ? 1 : 0);
  if (!open) Atomics.notify(signal, IN_TRANSACTION);
}

/**
 * On the writer's thread: waits while some write is announced in `signal`,
 * at most `maxMs` (the server's write may be waiting for a lock of its own).
 */
export function waitForAnnouncedWrites(signal: Int32Array, maxMs: number): void {
  const until = performance.now() + maxMs;
  for (let n = Atomics.load(signal, WRITES); n > 0; n = Atomics.load(signal, WRITES)) {
    const left = until - performance.now();
    if (left <= 0) return;
    Atomics.wait(signal, WRITES, n, left);
  }
}
