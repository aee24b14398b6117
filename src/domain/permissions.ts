import { AppError } from "../errors.ts";

/**
 * Permissions are `resource:action`; `*` as the action grants every action on
 * the resource, and `*:*` grants everything.
 */
export const RESOURCES = ["file", "org", "user", "role", "group", "apikey", "settings", "watched"] as const;
export const ACTIONS = ["read", "write", "delete", "admin", "manage", "*"] as const;

export const ADMIN_PERMISSIONS = ["*:*"];
export const MEMBER_PERMISSIONS = ["file:*", "org:read", "apikey:*", "settings:read", "settings:write"];

const PERMISSION = /^(\*|[a-z][a-z_]{0,31}):(\*|[a-z][a-z_]{0,31})$/;

/** True when `p` is a well-formed permission naming a known resource and action. */
export function isValidPermission(p: unknown): p is string {
  if (typeof p !== "string" || !PERMISSION.test(p)) return false;
  const [resource, action] = p.split(":") as [string, string];
  return (
    (resource === "*" || (RESOURCES as readonly string[]).includes(resource)) &&
    (ACTIONS as readonly string[]).includes(action)
  );
}

/** Validates a permission list from a client: 400 naming the first bad entry. */
export function assertPermissions(list: readonly string[]): string[] {
  for (const p of list) {
    if (!isValidPermission(p)) throw new AppError("VALIDATION", `invalid permission ${JSON.stringify(p)}`);
  }
  return [...new Set(list)];
}

/** True when `granted` includes `required` directly or through a wildcard. */
export function hasPermission(granted: readonly string[], required: string): boolean {
  const [resource, action] = required.split(":");
  for (const g of granted) {
    if (g === required || g === "*:*") return true;
    const [gr, ga] = g.split(":");
    if ((gr === resource || gr === "*") && (ga === action || ga === "*")) return true;
  }
  return false;
}

/**
 * What both lists grant, pair by pair: `*:*` and `file:*` meet in `file:*`,
 * `file:*` and `file:read` in `file:read` (a token or key claiming more than
 * its user's roles now give keeps what they still give, not nothing).
 */
export function intersect(a: readonly string[], b: readonly string[]): string[] {
  const meet = (x: string, y: string) => (x === "*" ? y : y === "*" || y === x ? x : undefined);
  const out = new Set<string>();
  for (const p of a) {
    const [pr = "", pa = ""] = p.split(":");
    for (const g of b) {
      const [gr = "", ga = ""] = g.split(":");
      const resource = meet(pr, gr);
      const action = meet(pa, ga);
      if (resource !== undefined && action !== undefined) out.add(`${resource}:${action}`);
    }
  }
  return [...out];
}

/** True when every permission of `wanted` is covered by `granted`. */
export function isSubset(wanted: readonly string[], granted: readonly string[]): boolean {
  return wanted.every((w) => {
    const [resource, action] = w.split(":");
    if (resource === "*" || action === "*") {
      // A wildcard is only a subset of an equal or wider wildcard.
      return granted.some((g) => {
        const [gr, ga] = g.split(":");
        return (gr === "*" || gr === resource) && (ga === "*" || ga === action);
      });
    }
    return hasPermission(granted, w);
  });
}
