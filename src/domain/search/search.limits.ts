/**
 * The numbers of a search's contract (docs/api.md), in a module of their
 * own: the search threads' bundle (search-worker.ts) needs them without
 * the request schemas and their validation library.
 */

/** Largest page a search may ask for; above it the request is refused (400), not silently cut. */
export const SEARCH_MAX_LIMIT = 1000;
export const SEARCH_DEFAULT_LIMIT = 50;
/** Totals up to this many matches are always exact; above it a search may answer an estimate (total_is_estimate). */
export const EXACT_TOTAL_BOUND = 5000;
