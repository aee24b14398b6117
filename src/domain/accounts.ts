import type { Config } from "../config/schema.ts";
import type { Db } from "../db/client.ts";
import type { Metrics } from "../platform/metrics.ts";
import type { PasswordHasher } from "../platform/passwords.ts";
import type { Actor } from "./actor.ts";
import { createApiKeysRepo } from "./apikeys/apikeys.repo.ts";
import { type ApiKeysService, createApiKeysService } from "./apikeys/apikeys.service.ts";
import { type AccountService, createAccountService } from "./auth/account.service.ts";
import { type AuthService, createAuthService } from "./auth/auth.service.ts";
import type { TokenSigner } from "./auth/tokens.ts";
import { createGroupsRepo } from "./groups/groups.repo.ts";
import { createGroupsService, type GroupsService } from "./groups/groups.service.ts";
import { createOrgsRepo } from "./orgs/orgs.repo.ts";
import { createOrgsService, type OrgsService } from "./orgs/orgs.service.ts";
import { createRolesRepo } from "./roles/roles.repo.ts";
import { createRolesService, type RolesService } from "./roles/roles.service.ts";
import { createUsersRepo, type UsersRepo } from "./users/users.repo.ts";
import { createUsersService, type UsersService } from "./users/users.service.ts";

/** The services of accounts and access, as the composition root exposes them. */
export interface AccountServices {
  auth: AuthService;
  usersRepo: UsersRepo;
  account: AccountService;
  users: UsersService;
  roles: RolesService;
  orgs: OrgsService;
  groups: GroupsService;
  apiKeys: ApiKeysService;
}

/**
 * Builds auth, account, users, roles, organizations, groups and API keys
 * over one database: the one service layer REST and RPC both call.
 */
export function createAccountServices(deps: {
  db: Db;
  cfg: Config;
  tokens: TokenSigner;
  passwords: PasswordHasher;
  metrics: Metrics;
  ensureHome: (actor: Actor) => string;
}): AccountServices {
  const { db, cfg, tokens, passwords, metrics } = deps;
  const usersRepo = createUsersRepo(db);
  const orgsRepo = createOrgsRepo(db);
  const auth = createAuthService({ db, users: usersRepo, tokens, passwords, metrics });
  const roles = createRolesService({ roles: createRolesRepo(db), users: usersRepo });
  const apiKeysRepo = createApiKeysRepo(db);
  const revokeApiKeys = (userId: string) => void apiKeysRepo.revokeAllOf(userId);
  const users = createUsersService({
    users: usersRepo,
    roles,
    passwords,
    revokeSessions: auth.revokeAllFor,
    revokeApiKeys,
  });
  return {
    auth,
    usersRepo,
    users,
    roles,
    account: createAccountService({
      registrationEnabled: cfg.auth.registration_enabled,
      auth,
      users,
      usersRepo,
      orgs: orgsRepo,
      passwords,
      metrics,
      ensureHome: deps.ensureHome,
      revokeApiKeys,
    }),
    orgs: createOrgsService({ orgs: orgsRepo, users }),
    groups: createGroupsService({ groups: createGroupsRepo(db), users: usersRepo }),
    apiKeys: createApiKeysService({
      keys: apiKeysRepo,
      users: usersRepo,
      maxPerUser: cfg.auth.max_api_keys_per_user,
    }),
  };
}
