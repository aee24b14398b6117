import { AppError } from "../errors.ts";
import { hasPermission } from "./permissions.ts";

/**
 * Who is making a request, established once by authentication and handed to
 * every service call. Services scope every query to `organizationId`.
 */
export interface Actor {
  userId: string;
  username: string;
  organizationId: string;
  permissions: readonly string[];
  /** May manage every organization of the instance. */
  isInstanceAdmin: boolean;
  /** How the caller proved who it is. */
  via: "jwt" | "apikey";
  apiKeyId?: string;
}

/** Throws 403 unless the actor holds `permission`. */
export function requirePermission(actor: Actor, permission: string): void {
  if (!hasPermission(actor.permissions, permission)) {
    throw new AppError("PERMISSION_DENIED", `missing permission ${permission}`);
  }
}

export function can(actor: Actor, permission: string): boolean {
  return hasPermission(actor.permissions, permission);
}
