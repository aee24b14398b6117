import { AppError } from "../../errors.ts";
import type { Actor } from "../actor.ts";
import { isSubset } from "../permissions.ts";

/** The part of a user row the delegation rule reads. */
export interface DelegationTarget {
  id: string;
  is_instance_admin: boolean;
}

/**
 * The delegation rule (docs/api.md, "Delegation"): acting on another user
 * (password reset, deactivation, update, role assignment) needs, besides the
 * permission for it, that the target's effective permissions are a subset of
 * the actor's, and an instance admin is touched only by an instance admin.
 * Without it a `user:manage` delegate could reset an Admin's password and
 * sign in as them. Acting on oneself is allowed when signed in; an API key
 * acts for its user but is not the user, so it may not reset, re-address or
 * re-role them (a password it set would outlive the key's revocation, and an
 * instance admin's key would become the instance admin's password).
 */
export function assertMayActOn(
  actor: Actor,
  target: DelegationTarget,
  targetPermissions: readonly string[],
): void {
  if (target.id === actor.userId) {
    if (actor.via === "apikey") {
      throw new AppError("PERMISSION_DENIED", "an API key cannot change its own user; sign in instead");
    }
    return;
  }
  if (target.is_instance_admin && !actor.isInstanceAdmin) {
    throw new AppError(
      "PERMISSION_DENIED",
      "only an instance administrator may act on an instance administrator",
    );
  }
  if (!isSubset(targetPermissions, actor.permissions)) {
    throw new AppError("PERMISSION_DENIED", "cannot act on a user holding permissions you do not hold");
  }
}
