import { createHash } from "node:crypto";
import { join } from "node:path";
import { AppError } from "../../errors.ts";
import type { Logger } from "../../log.ts";
import type { FfmpegProcess } from "../../platform/ffmpeg.ts";
import type { ReadableFile } from "../../platform/open-files.ts";
import type { WorkDir } from "../../platform/work-dir.ts";
import { type HwAccel, type Layout, type StreamPlan, segmentArgs } from "./stream-plan.ts";

/**
 * Running conversions (remux or transcode into HLS segments), one per file
 * version, plan and playback session (a player's stream token): two people
 * watching one film at different places each have theirs, instead of
 * restarting one ffmpeg back and forth between their places.
 *
 * A segment is served once its conversion has finished it. A request for a
 * segment the running conversion will not reach soon (a seek) restarts
 * ffmpeg at that segment, so a seek to minute 90 waits for one segment, not
 * for 90 minutes of conversion. Bounds:
 * - at most `maxRunning` ffmpeg processes; a new one stops the least
 *   recently asked-for conversion idle for IDLE_FOR_SLOT_MS, or one of the
 *   same user's earlier sessions of the same file (a reload, the player
 *   opened again), else 503;
 * - a conversion runs at most AHEAD_PAUSE segments ahead of its player,
 *   then pauses (SIGSTOP) until the player comes within AHEAD_RESUME;
 * - a conversion nobody asked a segment of for `idleMs` is stopped and its
 *   files removed;
 * - its segments together stay under `maxBytes`: the ones furthest behind
 *   their players go first.
 */

/** How far ahead of the segment asked for the running conversion may be and still be waited for. */
const WAIT_AHEAD = 3;
const AHEAD_PAUSE = 20;
const AHEAD_RESUME = 10;
/** A conversion that long without requests can give its slot to another. */
const IDLE_FOR_SLOT_MS = 15_000;
/** Longest wait for one segment before answering 503. */
const SEGMENT_WAIT_MS = 60_000;
const TICK_MS = 200;
/** How long a failed conversion answers 503 before ffmpeg is tried again. */
const FAILURE_MEMORY_MS = 30_000;

export interface ConversionInput {
  /** File id and content version: a new version converts anew. */
  fileId: string;
  etag: string;
  /** The playback session (an opaque id of the player's stream token) and its user. */
  session: string;
  owner: string;
  plan: StreamPlan;
  planKey: string;
  layout: Layout;
  /**
   * Opens the file to convert (OpenedContent.open: the checked descriptor,
   * never a path), each time a run starts; ffmpeg reads the one opened.
   */
  open: () => Promise<ReadableFile>;
  height?: number;
}

interface Job {
  key: string;
  name: string;
  dir: string;
  input: ConversionInput;
  /** Finished segments and their sizes in bytes. */
  done: Map<number, number>;
  proc?: FfmpegProcess;
  runFrom: number;
  runId: number;
  listFile: string;
  paused: boolean;
  failed?: string;
  /** When the last run failed, and from which segment (a failing file is not restarted at once). */
  failedAt?: { ms: number; from: number };
  lastRequested: number;
  lastAccess: number;
  ticking: boolean;
}

export interface ConversionsOptions {
  work: WorkDir;
  /** Starts ffmpeg reading `input` (which the caller may release once this returns). */
  spawn: (args: string[], cwd: string, input: ReadableFile) => FfmpegProcess | undefined;
  /** The demuxer forced for a file (sniffed from its content), read when a conversion starts. */
  demuxerOf: (file: ReadableFile) => Promise<string | undefined>;
  maxRunning: number;
  idleMs: number;
  maxBytes: number;
  hwaccel: HwAccel;
  log: Logger;
  onStart?: (mode: string) => void;
}

export function createConversions(opts: ConversionsOptions) {
  const jobs = new Map<string, Job>();
  let totalBytes = 0;
  const sweeper = setInterval(() => void oneAtATime(sweep), 5_000);
  sweeper.unref();

  const running = () => [...jobs.values()].filter((j) => j.proc);

  /**
   * Finding or making a job, choosing to start or restart its ffmpeg, and
   * stopping idle ones happen one at a time: each awaits (a directory, the
   * sniffed demuxer) before `proc` is set, and concurrent requests deciding
   * meanwhile would each start an ffmpeg past `maxRunning`, or replace a
   * job's run without stopping it (an ffmpeg nobody tracks, running to the
   * end of the file). Each step takes milliseconds; serving a finished
   * segment does not wait for it.
   */
  let turn: Promise<unknown> = Promise.resolve();
  function oneAtATime<T>(step: () => Promise<T>): Promise<T> {
    const run = turn.then(step);
    turn = run.catch(() => undefined);
    return run;
  }

  async function stopJob(job: Job, remove: boolean): Promise<void> {
    job.proc?.stop();
    job.proc = undefined;
    job.paused = false;
    if (remove) {
      jobs.delete(job.key);
      for (const size of job.done.values()) totalBytes -= size;
      job.done.clear();
      await opts.work.remove(job.name);
    }
  }

  /** Stops idle conversions. */
  async function sweep(): Promise<void> {
    const now = Date.now();
    for (const job of [...jobs.values()]) {
      if (now - job.lastAccess > opts.idleMs) {
        opts.log.debug({ file: job.input.fileId, plan: job.input.planKey }, "conversion idle: stopped");
        await stopJob(job, true);
      }
    }
  }

  /** Reads the segments ffmpeg has finished (its list file) and applies the bounds. */
  async function refresh(job: Job): Promise<void> {
    const listed = await opts.work.text(join(job.dir, job.listFile));
    for (const line of listed.split("\n")) {
      const m = /^seg-(\d+)\.ts,/.exec(line);
      if (!m) continue;
      const n = Number(m[1]);
      if (job.done.has(n)) continue;
      const size = (await opts.work.size(join(job.dir, `seg-${n}.ts`))) ?? 0;
      job.done.set(n, size);
      totalBytes += size;
    }
    const highest = Math.max(-1, ...[...job.done.keys()].filter((n) => n >= job.runFrom));
    if (job.proc && !job.paused && highest - job.lastRequested >= AHEAD_PAUSE) {
      job.proc.pause();
      job.paused = true;
    } else if (job.proc && job.paused && highest - job.lastRequested < AHEAD_RESUME) {
      job.proc.resume();
      job.paused = false;
    }
    if (totalBytes > opts.maxBytes) await trim();
  }

  /** Removes segments behind their players, furthest first, until under the cap. */
  async function trim(): Promise<void> {
    const behind: { job: Job; n: number; size: number; distance: number }[] = [];
    for (const job of jobs.values()) {
      for (const [n, size] of job.done) {
        if (n < job.lastRequested - 1) behind.push({ job, n, size, distance: job.lastRequested - n });
      }
    }
    behind.sort((a, b) => b.distance - a.distance);
    for (const b of behind) {
      if (totalBytes <= opts.maxBytes) return;
      b.job.done.delete(b.n);
      totalBytes -= b.size;
      await opts.work.removeFile(join(b.job.dir, `seg-${b.n}.ts`));
    }
    // Still over: pause the conversions that are ahead (they resume as players catch up).
    for (const job of jobs.values()) {
      if (job.proc && !job.paused) {
        job.proc.pause();
        job.paused = true;
      }
    }
  }

  /** Keeps reading a job's progress while it runs. */
  function tick(job: Job): void {
    if (job.ticking) return;
    job.ticking = true;
    const loop = async () => {
      while (job.proc && jobs.get(job.key) === job) {
        await refresh(job);
        await new Promise((r) => setTimeout(r, TICK_MS));
      }
      job.ticking = false;
    };
    void loop();
  }

  async function freeSlot(except: Job): Promise<void> {
    const others = running().filter((j) => j !== except);
    if (others.length < opts.maxRunning) return;
    const { input } = except;
    const replaced = (j: Job) =>
      j.input.owner === input.owner && j.input.fileId === input.fileId && j.input.session !== input.session;
    const idle = others
      .filter((j) => Date.now() - j.lastAccess > IDLE_FOR_SLOT_MS || replaced(j))
      .sort((a, b) => a.lastAccess - b.lastAccess)[0];
    if (!idle) {
      throw new AppError(
        "UNAVAILABLE",
        `the server is already converting ${opts.maxRunning} videos; try again when one of them stops`,
      );
    }
    await stopJob(idle, false);
  }

  async function start(job: Job, from: number): Promise<void> {
    await freeSlot(job);
    await stopJob(job, false);
    job.runId++;
    job.runFrom = from;
    job.failed = undefined;
    job.listFile = `list-${job.runId}.csv`;
    // The new run rewrites the segments from `from` on: none of them counts as finished until it has.
    for (const [n, size] of [...job.done]) {
      if (n >= from) {
        job.done.delete(n);
        totalBytes -= size;
      }
    }
    const proc = await runFfmpeg(job, from);
    if (!proc) throw new AppError("UNAVAILABLE", "video conversion is off (ffmpeg missing)");
    job.proc = proc;
    opts.onStart?.(job.input.plan.mode);
    const runId = job.runId;
    void proc.exited.then(async (code) => {
      if (job.runId !== runId) return;
      await refresh(job);
      job.proc = undefined;
      job.paused = false;
      if (code !== 0 && code !== null) {
        job.failed =
          proc.stderrTail().trim().split("\n").slice(-3).join(" | ") || `ffmpeg exited with ${code}`;
        job.failedAt = { ms: Date.now(), from: job.runFrom };
        opts.log.warn(
          { file: job.input.fileId, plan: job.input.planKey, err: job.failed },
          "conversion failed",
        );
      }
    });
    tick(job);
  }

  /** Opens the file, sniffs it and starts ffmpeg on that descriptor (the child keeps its own copy). */
  async function runFfmpeg(job: Job, from: number): Promise<FfmpegProcess | undefined> {
    const file = await job.input.open();
    try {
      const demuxer = await opts.demuxerOf(file);
      if (!demuxer) throw new AppError("VALIDATION", "the file could not be read as media");
      const args = segmentArgs({
        plan: job.input.plan,
        layout: job.input.layout,
        from,
        demuxer,
        listFile: job.listFile,
        hwaccel: opts.hwaccel,
        height: job.input.height,
      });
      return opts.spawn(args, job.dir, file);
    } finally {
      file.release();
    }
  }

  const keyOf = (input: ConversionInput) => `${input.fileId}:${input.etag}:${input.planKey}:${input.session}`;

  async function jobFor(input: ConversionInput): Promise<Job> {
    const key = keyOf(input);
    const found = jobs.get(key);
    if (found) return found;
    const name = createHash("sha256").update(key).digest("hex").slice(0, 24);
    const job: Job = {
      key,
      name,
      dir: await opts.work.make(name),
      input,
      done: new Map(),
      runFrom: 0,
      runId: 0,
      listFile: "",
      paused: false,
      lastRequested: 0,
      lastAccess: Date.now(),
      ticking: false,
    };
    jobs.set(key, job);
    return job;
  }

  return {
    /**
     * The path of segment `n` of `input`, once converted: waits for the
     * running conversion when it is about to reach it, restarts it there
     * otherwise. 503 when no conversion slot is free, ffmpeg fails, or the
     * segment takes longer than a minute.
     */
    async segment(input: ConversionInput, n: number): Promise<string> {
      const ready = jobs.get(keyOf(input));
      if (ready?.done.has(n)) {
        ready.lastAccess = Date.now();
        ready.lastRequested = n;
        if (ready.paused) await refresh(ready);
        return join(ready.dir, `seg-${n}.ts`);
      }
      const claimed = await oneAtATime(async () => {
        const job = await jobFor(input);
        job.lastAccess = Date.now();
        job.lastRequested = n;
        if (job.done.has(n)) return { job, runId: job.runId };
        const highest = Math.max(job.runFrom - 1, ...[...job.done.keys()].filter((k) => k >= job.runFrom));
        const reachable = job.proc && n >= job.runFrom && n <= highest + WAIT_AHEAD;
        // ffmpeg failed here a moment ago: answer that instead of starting it again for every retry.
        const failedHere =
          job.failedAt && job.failedAt.from <= n && Date.now() - job.failedAt.ms < FAILURE_MEMORY_MS;
        if (!reachable && failedHere) {
          throw new AppError(
            "UNAVAILABLE",
            `the conversion of this file failed: ${job.failed ?? "ffmpeg error"}`,
          );
        }
        if (!reachable) await start(job, n);
        else if (job.paused) {
          job.proc?.resume();
          job.paused = false;
        }
        return { job, runId: job.runId };
      });
      const { job } = claimed;
      let { runId } = claimed;
      const path = join(job.dir, `seg-${n}.ts`);
      const deadline = Date.now() + SEGMENT_WAIT_MS;
      for (;;) {
        if (job.done.has(n)) return path;
        if (job.runId !== runId) {
          // Another request restarted the conversion elsewhere (a seek, another viewer): wait for the new
          // run only if it is about to make this segment (as for a new request); else it will not come soon
          // (it pauses AHEAD_PAUSE segments past its own player), and the player should ask again.
          if (n < job.runFrom || n >= job.runFrom + WAIT_AHEAD) {
            throw new AppError("UNAVAILABLE", "the conversion moved to another part of the file; ask again");
          }
          runId = job.runId;
        }
        if (!job.proc) {
          await refresh(job);
          if (job.done.has(n)) return path;
          throw new AppError(
            "UNAVAILABLE",
            `the conversion of this file failed${job.failed ? `: ${job.failed}` : ""}`,
          );
        }
        if (Date.now() > deadline) throw new AppError("UNAVAILABLE", "the conversion is too slow; try again");
        await new Promise((r) => setTimeout(r, TICK_MS / 2));
        job.lastAccess = Date.now();
      }
    },

    /** Conversions now (for /health and the tests). */
    stats(): { jobs: number; running: number; bytes: number } {
      return { jobs: jobs.size, running: running().length, bytes: totalBytes };
    },

    /** Stops every conversion and removes their files (server stop). */
    async close(): Promise<void> {
      clearInterval(sweeper);
      for (const job of [...jobs.values()]) await stopJob(job, true);
      opts.work.clear();
    },
  };
}

export type Conversions = ReturnType<typeof createConversions>;
