import m0001 from "./0001_init.ts";

/**
 * Every migration, in order, embedded as text so the single executable
 * carries them. Append new ones; never edit one that has shipped.
 */
export const MIGRATIONS: readonly { id: number; name: string; sql: string }[] = [
  { id: 1, name: "init", sql: m0001 },
];
