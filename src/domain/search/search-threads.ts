import type { Worker } from "node:worker_threads";
import { startDbThread } from "../../db/db-thread.ts";
import { AppError } from "../../errors.ts";
import type { Scope, SearchPage, SearchPlanOptions, SearchRepo } from "./search.repo.ts";
import type { SearchSpec } from "./search.schemas.ts";
import type { SearchWorkerReply, SearchWorkerRequest } from "./search-worker.ts";

const cancelled = () => new AppError("CANCELLED", "the search was cancelled: its client went away");

/** The worker's bundle inside the single executable (scripts/build.ts embeds it). */
export const SEARCH_WORKER_ASSET = "build/search-worker.cjs";

export interface SearchThreadOptions {
  /** The database file (the threads open connections of their own). */
  file: string;
  plan: SearchPlanOptions;
  /** Most threads at once (each started when every other one is busy). */
  threads: number;
  /** Page cache of each thread's connection, KiB. */
  cacheKib: number;
  /** A thread with nothing to do for this long ends (the next search starts one again). */
  idleMs: number;
  /** Most searches one caller may have running or waiting; past it, 429 RATE_LIMITED. */
  perCaller: number;
  /** Most searches waiting for a thread; past it, 503 UNAVAILABLE. */
  maxWaiting: number;
  /** Answers in the server's own thread when no search thread can start. */
  fallback: SearchRepo;
  /** Told once when the threads fail and searches move to the server's thread. */
  onFailure?: (err: Error) => void;
}

interface Job {
  request: Omit<SearchWorkerRequest, "seq">;
  caller: string;
  resolve: (page: SearchPage) => void;
  reject: (err: Error) => void;
  /** Stops listening to the request's abort signal (the job has started or ended). */
  forget: () => void;
}

interface Thread {
  worker: Worker;
  /** The job it answers, with its number; none while idle. */
  job?: Job & { seq: number };
  idleTimer?: NodeJS.Timeout;
}

/**
 * Runs search pages (search.repo.ts `page`) on threads of their own
 * (search-worker.ts), so that no search holds the event loop: a single
 * letter sorted by date, or filtered to one folder, reads most of a large
 * library's rows (seconds at a million files), and on the server's own
 * thread every other request waited that long.
 *
 * Searches wait for the first thread free; a second thread starts only
 * when the first is busy, so a quick search need not wait behind a slow
 * one. A thread freed takes the oldest search of the caller with the
 * fewest searches running, so that one caller's queue never stands before
 * another's first search. Each caller may have
 * `perCaller` searches running or waiting (a script firing slow searches
 * in a loop gets 429, not every thread), and at most `maxWaiting` wait in
 * all (503 beyond). Threads end after `idleMs` without work: an idle
 * server keeps no extra isolate or connection.
 */
export class SearchThreads {
  private readonly options: SearchThreadOptions;
  private readonly threads: Thread[] = [];
  private readonly waiting: Job[] = [];
  private readonly perCaller = new Map<string, number>();
  private seq = 0;
  private closed = false;
  /** Searches the threads have answered (or failed). */
  answered = 0;
  /** Set once a thread failed to start or died: searches are answered in the server's thread. */
  failed: Error | undefined;

  constructor(options: SearchThreadOptions) {
    this.options = options;
  }

  /** Searches running on a thread. */
  get busy(): number {
    return this.threads.filter((t) => t.job).length;
  }

  /** Searches waiting for a thread. */
  get queued(): number {
    return this.waiting.length;
  }

  /**
   * One page of `spec`'s matches for `caller` (a user or key: what
   * perCaller counts). When `signal` aborts (the client went away) while the
   * search waits for a thread, it leaves the queue (499 CANCELLED); a search
   * already running on a thread cannot be stopped and finishes.
   */
  page(
    caller: string,
    organizationId: string,
    spec: SearchSpec,
    limit: number,
    offset: number,
    scope?: Scope,
    signal?: AbortSignal,
  ): Promise<SearchPage> {
    const request = { organizationId, spec, limit, offset, scope };
    if (this.failed) return Promise.resolve(this.inProcess(request));
    if (this.closed) return Promise.reject(new AppError("UNAVAILABLE", "the server is shutting down"));
    if (signal?.aborted) return Promise.reject(cancelled());
    const mine = this.perCaller.get(caller) ?? 0;
    if (mine >= this.options.perCaller) {
      return Promise.reject(
        new AppError(
          "RATE_LIMITED",
          `at most ${this.options.perCaller} searches at once per caller; retry when one ends`,
        ),
      );
    }
    const free = this.threads.find((t) => !t.job);
    if (
      !free &&
      this.threads.length >= this.options.threads &&
      this.waiting.length >= this.options.maxWaiting
    ) {
      return Promise.reject(new AppError("UNAVAILABLE", "too many searches waiting; retry shortly"));
    }
    this.perCaller.set(caller, mine + 1);
    return new Promise<SearchPage>((resolve, reject) => {
      const done = () => {
        const n = (this.perCaller.get(caller) ?? 1) - 1;
        if (n > 0) this.perCaller.set(caller, n);
        else this.perCaller.delete(caller);
      };
      const onAbort = () => {
        const i = this.waiting.indexOf(job);
        if (i < 0) return;
        this.waiting.splice(i, 1);
        job.reject(cancelled());
      };
      const job: Job = {
        request,
        caller,
        resolve: (page) => {
          job.forget();
          done();
          resolve(page);
        },
        reject: (err) => {
          job.forget();
          done();
          reject(err);
        },
        forget: () => signal?.removeEventListener("abort", onAbort),
      };
      const thread = free ?? (this.threads.length < this.options.threads ? this.start() : undefined);
      if (thread) this.assign(thread, job);
      else if (this.failed) this.answerInProcess(job);
      else {
        this.waiting.push(job);
        signal?.addEventListener("abort", onAbort, { once: true });
      }
    });
  }

  /** Ends every thread; searches waiting are refused (503). */
  async close(): Promise<void> {
    this.closed = true;
    for (const job of this.waiting.splice(0))
      job.reject(new AppError("UNAVAILABLE", "the server is shutting down"));
    await Promise.all(this.threads.splice(0).map((t) => this.end(t)));
  }

  private inProcess(r: Omit<SearchWorkerRequest, "seq">): SearchPage {
    return this.options.fallback.page(r.organizationId, r.spec, r.limit, r.offset, r.scope);
  }

  private answerInProcess(job: Job): void {
    try {
      job.resolve(this.inProcess(job.request));
    } catch (err) {
      job.reject(err instanceof Error ? err : new Error(String(err)));
    }
  }

  /** A new thread, or undefined (and `failed` set) when none can start. */
  private start(): Thread | undefined {
    let worker: Worker;
    try {
      worker = startDbThread(SEARCH_WORKER_ASSET, new URL("./search-worker.ts", import.meta.url), {
        file: this.options.file,
        plan: this.options.plan,
        cacheKib: this.options.cacheKib,
      });
    } catch (err) {
      this.fail(err instanceof Error ? err : new Error(String(err)));
      return undefined;
    }
    const thread: Thread = { worker };
    worker.on("message", (reply: SearchWorkerReply) => {
      const job = thread.job;
      if (!job || job.seq !== reply.seq) return;
      thread.job = undefined;
      this.answered++;
      if ("error" in reply) job.reject(new Error(`search failed: ${reply.error}`));
      else job.resolve(reply.page);
      this.next(thread);
    });
    const died = (err: Error) => {
      const i = this.threads.indexOf(thread);
      if (i < 0) return;
      this.threads.splice(i, 1);
      clearTimeout(thread.idleTimer);
      if (this.closed) return;
      this.fail(err);
      // What it was answering, and what waits, is answered here instead.
      if (thread.job) this.answerInProcess(thread.job);
      for (const job of this.waiting.splice(0)) this.answerInProcess(job);
    };
    worker.on("error", died);
    worker.on("exit", (code) => died(new Error(`search thread exited (${code})`)));
    this.threads.push(thread);
    return thread;
  }

  private fail(err: Error): void {
    if (this.failed) return;
    this.failed = err;
    this.options.onFailure?.(err);
  }

  private assign(thread: Thread, job: Job): void {
    job.forget();
    clearTimeout(thread.idleTimer);
    thread.idleTimer = undefined;
    const seq = ++this.seq;
    thread.job = { ...job, seq };
    // A search answering keeps the process alive (an idle thread does not: startDbThread unrefs it).
    thread.worker.ref();
    thread.worker.postMessage({ seq, ...job.request } satisfies SearchWorkerRequest);
  }

  /** The thread's next job, or its idle countdown. */
  private next(thread: Thread): void {
    if (this.waiting.length > 0) {
      const running = new Map<string, number>();
      for (const t of this.threads)
        if (t.job) running.set(t.job.caller, (running.get(t.job.caller) ?? 0) + 1);
      let pick = 0;
      for (let i = 1; i < this.waiting.length; i++) {
        if ((running.get(this.waiting[i]!.caller) ?? 0) < (running.get(this.waiting[pick]!.caller) ?? 0))
          pick = i;
      }
      this.assign(thread, this.waiting.splice(pick, 1)[0]!);
      return;
    }
    thread.worker.unref();
    thread.idleTimer = setTimeout(() => {
      const i = this.threads.indexOf(thread);
      if (i < 0 || thread.job) return;
      this.threads.splice(i, 1);
      void this.end(thread);
    }, this.options.idleMs);
    thread.idleTimer.unref();
  }

  private async end(thread: Thread): Promise<void> {
    clearTimeout(thread.idleTimer);
    const exited = new Promise((resolve) => thread.worker.once("exit", resolve));
    thread.worker.ref(); // until it has exited: close() may be what the process waits for
    thread.worker.postMessage("close");
    await exited;
  }
}
