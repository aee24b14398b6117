import { AppError } from "../../errors.ts";
import { nowIso } from "../../platform/ids.ts";
import { type Actor, requirePermission } from "../actor.ts";
import { parseInput } from "../parse-input.ts";
import type { SettingsOwner, SettingsRepo } from "./settings.repo.ts";
import { SETTINGS_LIMITS, type Settings, SettingsUpdateInput } from "./settings.schemas.ts";

/**
 * User settings (each user's own preferences, any authenticated user) and
 * application settings (one object per organization: read with org:read,
 * changed with org:admin). Both are JSON objects of key → JSON value;
 * updates merge, and a null value removes a key.
 */
export function createSettingsService(deps: { repo: SettingsRepo }) {
  const { repo } = deps;
  const userOwner = (a: Actor): SettingsOwner => ({ organizationId: a.organizationId, userId: a.userId });
  const appOwner = (a: Actor): SettingsOwner => ({ organizationId: a.organizationId, userId: "" });

  const read = (o: SettingsOwner): Settings => {
    const out: Settings = {};
    for (const r of repo.all(o)) out[r.key] = r.value;
    return out;
  };

  const update = (o: SettingsOwner, input: unknown): Settings => {
    const data = parseInput(SettingsUpdateInput, input);
    const set: [string, unknown][] = [];
    const remove: string[] = [];
    for (const [key, value] of Object.entries(data)) {
      if (value === null || value === undefined) remove.push(key);
      else set.push([key, checkValue(key, value)]);
    }
    repo.apply(o, set, remove, nowIso(), (rows) => {
      if (rows.length > SETTINGS_LIMITS.maxKeys) {
        throw new AppError("VALIDATION", `at most ${SETTINGS_LIMITS.maxKeys} settings keys`);
      }
      const total = rows.reduce((n, r) => n + Buffer.byteLength(JSON.stringify(r.value)) + r.key.length, 0);
      if (total > SETTINGS_LIMITS.maxTotalBytes) {
        throw new AppError("PAYLOAD_TOO_LARGE", `settings exceed ${SETTINGS_LIMITS.maxTotalBytes} bytes`);
      }
    });
    return read(o);
  };

  return {
    /** The caller's own settings (`settings:read`). */
    getUser: (actor: Actor): Settings => {
      requirePermission(actor, "settings:read");
      return read(userOwner(actor));
    },
    /**
     * Merges `input` into the caller's settings (`settings:write`: a read-only
     * API key cannot change them); answers the result.
     */
    updateUser: (actor: Actor, input: unknown): Settings => {
      requirePermission(actor, "settings:write");
      return update(userOwner(actor), input);
    },
    /** The organization's application settings (org:read). */
    getApp: (actor: Actor): Settings => {
      requirePermission(actor, "org:read");
      return read(appOwner(actor));
    },
    /** Merges `input` into the application settings (org:admin); answers the result. */
    updateApp: (actor: Actor, input: unknown): Settings => {
      requirePermission(actor, "org:admin");
      return update(appOwner(actor), input);
    },
  };
}

/** A value must be JSON (no functions, NaN, cycles) and small; answers it as stored. */
function checkValue(key: string, value: unknown): unknown {
  let text: string | undefined;
  try {
    text = JSON.stringify(value);
  } catch {
    throw new AppError("VALIDATION", `${key}: not a JSON value`);
  }
  if (text === undefined) throw new AppError("VALIDATION", `${key}: not a JSON value`);
  if (Buffer.byteLength(text) > SETTINGS_LIMITS.maxValueBytes) {
    throw new AppError("PAYLOAD_TOO_LARGE", `${key}: value exceeds ${SETTINGS_LIMITS.maxValueBytes} bytes`);
  }
  return JSON.parse(text);
}

export type SettingsService = ReturnType<typeof createSettingsService>;
