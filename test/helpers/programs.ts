import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";

const cache = new Map<string, boolean>();

/** True when `program` (a name on PATH or an absolute path) can be started. */
export function hasProgram(program: string): boolean {
  let known = cache.get(program);
  if (known === undefined) {
    known = program.startsWith("/")
      ? existsSync(program)
      : spawnSync(program, ["-version"], { stdio: "ignore" }).error === undefined;
    cache.set(program, known);
  }
  return known;
}

/**
 * For `describe.skipIf(missing(...))`: true when any program is absent, and
 * then says so on stderr, naming them, so a skipped suite is never silent.
 * Only for programs CI installs (ffmpeg, chromium): a broken feature must fail.
 */
export function missing(suite: string, ...programs: string[]): boolean {
  const absent = programs.filter((p) => !hasProgram(p));
  if (absent.length > 0) process.stderr.write(`skipping "${suite}": ${absent.join(", ")} not installed\n`);
  return absent.length > 0;
}

/**
 * Asserts a /health body is healthy, or degraded only because the media
 * tools are missing (a machine without ffmpeg is a supported machine).
 */
export function expectHealthy(body: { status: string; details?: Record<string, { status: string }> }): void {
  const notOk = Object.entries(body.details ?? {})
    .filter(([, v]) => v.status !== "ok")
    .map(([k]) => k);
  const mediaOnly = notOk.length === 1 && notOk[0] === "media" && body.details?.media?.status === "degraded";
  if (body.status === "healthy" || (body.status === "degraded" && mediaOnly)) return;
  throw new Error(`/health is ${body.status} (${notOk.join(", ") || "no details"}): ${JSON.stringify(body)}`);
}
