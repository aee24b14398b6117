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
  via: "jwt" | "apikey" | "basic";
  apiKeyId?: string;
  /**
   * The user must choose a new password first (a reset by an admin, or the
   * generated first password): until then every permission check refuses,
   * so only profile, change-password and logout (which need none) answer.
   */
  mustChangePassword?: boolean;
  /**
   * Whether the organization admin's override over shared folders applies
   * (docs/access.md). Absent: it follows `org:admin` in `permissions`. A
   * stream token's actor reads with its user's override but no other power.
   */
  sharedAdmin?: boolean;
}

function refuseUntilPasswordChanged(actor: Actor): void {
  if (actor.mustChangePassword) {
    throw new AppError("PASSWORD_CHANGE_REQUIRED", "change your password first (PUT /api/v1/auth/password)");
  }
}

/** Throws 403 unless the actor holds `permission`. */
export function requirePermission(actor: Actor, permission: string): void {
  refuseUntilPasswordChanged(actor);
  if (!hasPermission(actor.permissions, permission)) {
    throw new AppError("PERMISSION_DENIED", `missing permission ${permission}`);
  }
}

/**
 * Throws 403 unless the actor is an instance admin: the powers over the
 * machine itself (host paths, other instance admins) are the machine
 * owner's, never an organization's, whatever its permissions.
 */
export function requireInstanceAdmin(actor: Actor, what: string): void {
  refuseUntilPasswordChanged(actor);
  if (!actor.isInstanceAdmin) {
    throw new AppError("PERMISSION_DENIED", `${what} needs an instance administrator`);
  }
}

export function can(actor: Actor, permission: string): boolean {
  return hasPermission(actor.permissions, permission);
}
