import { AppError, notFound } from "../../errors.ts";
import { newId, nowIso } from "../../platform/ids.ts";
import { type Actor, can, requirePermission } from "../actor.ts";
import { hashSecret, newApiKeySecret } from "../auth/tokens.ts";
import { parseInput } from "../parse-input.ts";
import { assertPermissions, isSubset } from "../permissions.ts";
import { assertMayActOn } from "../users/delegation.ts";
import { permissionsOf, type UsersRepo } from "../users/users.repo.ts";
import type { ApiKeyRow, ApiKeysRepo } from "./apikeys.repo.ts";
import { type ApiKey, type CreateApiKey, CreateApiKeyInput, type CreatedApiKey } from "./apikeys.schemas.ts";

const toApiKey = (k: ApiKeyRow): ApiKey => ({
  id: k.id,
  name: k.name,
  prefix: k.prefix,
  permissions: k.permissions,
  created_at: k.created_at,
  last_used_at: k.last_used_at,
  expires_at: k.expires_at,
});

/**
 * A user's own API keys. A key's permissions are a subset of what its creator
 * holds at creation time: for a signed-in user their roles' permissions now
 * (not the possibly stale token), for a caller authenticated by a key that
 * key's permissions, so a key can never mint a wider one. At most
 * `maxPerUser` live keys per user.
 */
export function createApiKeysService(deps: { keys: ApiKeysRepo; users: UsersRepo; maxPerUser: number }) {
  const { keys, users } = deps;

  function grantedTo(actor: Actor): readonly string[] {
    if (actor.via === "apikey") return actor.permissions;
    return permissionsOf(users.rolesOf(actor.userId));
  }

  function expiryOf(value: string | undefined): string | null {
    if (value === undefined) return null;
    const at = new Date(value);
    if (Number.isNaN(at.getTime()) || at.getTime() <= Date.now()) {
      throw new AppError("VALIDATION", "expires_at must be a timestamp in the future");
    }
    return at.toISOString();
  }

  function create(actor: Actor, input: CreateApiKey): CreatedApiKey {
    requirePermission(actor, "apikey:write");
    const data = parseInput(CreateApiKeyInput, input);
    if (data.organization_id !== undefined && data.organization_id !== actor.organizationId) {
      throw notFound("organization");
    }
    const permissions = assertPermissions(data.permissions);
    if (!isSubset(permissions, grantedTo(actor))) {
      throw new AppError(
        "PERMISSION_DENIED",
        "an API key cannot have permissions its creator does not hold",
        {
          requested: permissions,
        },
      );
    }
    const expires_at = expiryOf(data.expires_at);
    if (keys.countLive(actor.organizationId, actor.userId) >= deps.maxPerUser) {
      throw new AppError("LIMIT_REACHED", `at most ${deps.maxPerUser} API keys per user`, {
        limit: deps.maxPerUser,
      });
    }
    const secret = newApiKeySecret();
    const row = keys.insert({
      id: newId(),
      organization_id: actor.organizationId,
      user_id: actor.userId,
      name: data.name,
      key_hash: hashSecret(secret),
      prefix: secret.slice(0, 12),
      permissions,
      created_at: nowIso(),
      expires_at,
    });
    const { last_used_at: _, ...shown } = toApiKey(row);
    return { ...shown, key: secret };
  }

  /**
   * Revokes one of the actor's keys, or, with `user:manage`, a key of a user
   * of the organization the actor may act on (the delegation rule: not an
   * instance admin's unless the actor is one, not a wider user's).
   */
  function revoke(actor: Actor, id: string): void {
    requirePermission(actor, "apikey:delete");
    const key = keys.byId(actor.organizationId, id);
    if (!key || (key.user_id !== actor.userId && !can(actor, "user:manage"))) throw notFound("API key");
    if (key.user_id !== actor.userId) {
      const owner = users.byIdInOrg(actor.organizationId, key.user_id);
      if (!owner) throw notFound("API key");
      assertMayActOn(actor, owner, permissionsOf(users.rolesOf(owner.id)));
    }
    keys.revoke(actor.organizationId, id);
  }

  return {
    create,
    list: (actor: Actor): { keys: ApiKey[] } => {
      requirePermission(actor, "apikey:read");
      return { keys: keys.listOf(actor.organizationId, actor.userId).map(toApiKey) };
    },
    revoke,
  };
}

export type ApiKeysService = ReturnType<typeof createApiKeysService>;
