import m0001 from "./0001_init.ts";
import m0002 from "./0002_search_name_index.ts";

/**
 * Every migration, in order, embedded as text so the single executable
 * carries them. Append new ones; never edit one that has shipped.
 */
export const MIGRATIONS: readonly { id: number; name: string; sql: string }[] = [
  { id: 1, name: "init", sql: m0001 },
  { id: 2, name: "search_name_index", sql: m0002 },
];
