import { z } from "@hono/zod-openapi";

/** Bounds of one settings object: few keys, small values (settings are preferences, not storage). */
export const SETTINGS_LIMITS = {
  maxKeys: 100,
  maxKeyLength: 64,
  /** Serialized JSON size of one value. */
  maxValueBytes: 16 * 1024,
  /** Serialized JSON size of all values of one owner after an update. */
  maxTotalBytes: 64 * 1024,
} as const;

const KEY = /^[A-Za-z0-9][A-Za-z0-9_.-]*$/;

/** A settings object as answered: key → any JSON value. */
export const SettingsSchema = z.record(z.string(), z.unknown()).openapi("Settings", {
  description: "Settings as a JSON object of key → JSON value.",
  example: { theme: "dark", "player.volume": 0.8 },
});

/**
 * An update: keys to set, merged into the stored settings; a null value
 * removes the key. Keys are 1-64 of [A-Za-z0-9_.-] starting alphanumeric.
 */
export const SettingsUpdateInput = z
  .record(
    z.string().max(SETTINGS_LIMITS.maxKeyLength).regex(KEY, "keys are [A-Za-z0-9_.-], starting alphanumeric"),
    z.unknown(),
  )
  .refine((o) => Object.keys(o).length <= SETTINGS_LIMITS.maxKeys, {
    message: `at most ${SETTINGS_LIMITS.maxKeys} keys`,
  })
  .openapi("SettingsUpdate", {
    description: "Keys to set (merged into the stored settings); a null value removes the key.",
    example: { theme: "dark", obsolete_key: null },
  });

export type SettingsUpdate = z.infer<typeof SettingsUpdateInput>;
export type Settings = Record<string, unknown>;
