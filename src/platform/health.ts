import { rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Logger } from "../log.ts";

/** One component's state in `/health` details. */
export interface HealthCheck {
  /** "ok" | "degraded" | "unhealthy"; unhealthy turns /health into 503. */
  status: "ok" | "degraded" | "unhealthy";
  message?: string;
  [k: string]: unknown;
}

/**
 * Components register checks; `/health` runs them all. A check that throws
 * is unhealthy; its error is logged, and only the check's own generic
 * message reaches the (anonymous) caller: no SQL or path text.
 */
export class HealthRegistry {
  private readonly checks = new Map<string, { check: () => HealthCheck; failure: string }>();
  private readonly log?: Logger;
  constructor(log?: Logger) {
    this.log = log;
  }

  /** `failure` is what callers read when `check` throws. */
  register(name: string, check: () => HealthCheck, failure = `${name} check failed`): void {
    this.checks.set(name, { check, failure });
  }

  run(): Record<string, HealthCheck> {
    const out: Record<string, HealthCheck> = {};
    for (const [name, { check, failure }] of this.checks) {
      try {
        out[name] = check();
      } catch (err) {
        this.log?.warn({ err, check: name }, "health check failed");
        out[name] = { status: "unhealthy", message: failure };
      }
    }
    return out;
  }
}

/** A check that is ok when `probe` returns and unhealthy when it throws. */
export function probeCheck(probe: () => void): () => HealthCheck {
  return () => {
    probe();
    return { status: "ok" };
  };
}

/**
 * The data directory takes a real write: access(W_OK) says yes to root on a
 * read-only or replaced directory. At most one write per `okForMs` while it
 * keeps succeeding.
 */
export function dataDirWritable(dataDir: string, okForMs = 1000): () => void {
  const probe = join(dataDir, `.health-${process.pid}`);
  let lastOk = Number.NEGATIVE_INFINITY;
  return () => {
    // A success holds for a second: a probe per request would make /health cost a
    // file create and unlink each time (a prober polling fast, or a flood, would
    // turn into disk work). A failure is never remembered: the next call probes.
    const now = performance.now();
    if (now - lastOk < okForMs) return;
    writeFileSync(probe, "");
    rmSync(probe);
    lastOk = now;
  };
}
