import { AppError } from "../../errors.ts";

/** Zip downloads one user may have running at once (planning or streaming). */
export const ZIP_DOWNLOADS_PER_USER = 2;
/** Entries all running zip downloads may hold together (~0.7 KiB of memory each while they stream). */
export const ZIP_ENTRIES_IN_FLIGHT = 300_000;

/** A running zip download's share of the budget; `release` is idempotent. */
export interface ZipTicket {
  /** Reserves `entries` more, or throws 503 (and releases the ticket) when the server holds too many. */
  hold(entries: number): void;
  release(): void;
}

/**
 * Bounds the memory zip downloads hold. A zip keeps its plan and its
 * archive's directory in memory until its last byte (~110 MiB of RSS for
 * 90,000 entries, measured: yazl's entries ~0.5 KiB each, the plan's
 * ~0.2 KiB), and four of them started at once by one user grew the server by
 * 748 MiB. A user may run ZIP_DOWNLOADS_PER_USER at once (429 beyond); all
 * together hold at most ZIP_ENTRIES_IN_FLIGHT entries (503 beyond).
 */
export class ZipBudget {
  private readonly perUser: number;
  private readonly maxEntries: number;
  private readonly running = new Map<string, number>();
  private held = 0;

  constructor(perUser = ZIP_DOWNLOADS_PER_USER, maxEntries = ZIP_ENTRIES_IN_FLIGHT) {
    this.perUser = perUser;
    this.maxEntries = maxEntries;
  }

  /** Starts a zip download of `userId`, or throws 429 when they have enough running. */
  begin(userId: string): ZipTicket {
    const mine = this.running.get(userId) ?? 0;
    if (mine >= this.perUser)
      throw new AppError(
        "RATE_LIMITED",
        `at most ${this.perUser} zip downloads at once: wait for one to finish`,
      );
    this.running.set(userId, mine + 1);
    let entries = 0;
    let open = true;
    const release = () => {
      if (!open) return;
      open = false;
      this.held -= entries;
      const n = (this.running.get(userId) ?? 1) - 1;
      if (n > 0) this.running.set(userId, n);
      else this.running.delete(userId);
    };
    return {
      hold: (n) => {
        if (this.held + n > this.maxEntries) {
          release();
          throw new AppError("UNAVAILABLE", "the server is busy with other zip downloads: retry in a minute");
        }
        this.held += n;
        entries += n;
      },
      release,
    };
  }
}
