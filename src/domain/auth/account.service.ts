import { conflictOnUnique } from "../../db/unique.ts";
import { AppError } from "../../errors.ts";
import { nowIso } from "../../platform/ids.ts";
import type { Metrics } from "../../platform/metrics.ts";
import type { PasswordHasher } from "../../platform/passwords.ts";
import type { Actor } from "../actor.ts";
import { createOrganization, createPersonalOrganization } from "../orgs/org-names.ts";
import type { OrgsRepo } from "../orgs/orgs.repo.ts";
import { parseInput } from "../parse-input.ts";
import type { UsersRepo } from "../users/users.repo.ts";
import type { Profile } from "../users/users.schemas.ts";
import type { UsersService } from "../users/users.service.ts";
import {
  ChangePasswordInput,
  type ProfileUpdate,
  ProfileUpdateInput,
  type Register,
  RegisterInput,
} from "./auth.schemas.ts";
import type { AuthService, TokenPair } from "./auth.service.ts";
import { assertStrongPassword } from "./password-policy.ts";

interface Deps {
  registrationEnabled: boolean;
  auth: AuthService;
  users: UsersService;
  usersRepo: UsersRepo;
  orgs: OrgsRepo;
  passwords: PasswordHasher;
  metrics: Metrics;
  /** The caller's personal folder, created on first use (grants.service.ts). */
  ensureHome: (actor: Actor) => string;
  /** Revokes every API key of the user. */
  revokeApiKeys: (userId: string) => void;
}

/** API keys act for a user but are not the user: they cannot change who the user is. */
function requireSignedIn(actor: Actor): void {
  if (actor.via !== "jwt") throw new AppError("PERMISSION_DENIED", "requires signing in, not an API key");
}

/**
 * The caller's own account: self-registration, password change, profile.
 * Registration creates an organization (named `organization_name`, or after
 * the user) with built-in roles, and makes the new user its Admin.
 */
export function createAccountService(deps: Deps) {
  const { users, usersRepo, passwords, metrics } = deps;

  async function register(input: Register): Promise<TokenPair> {
    const fail = (err: unknown) => {
      metrics.authAttempts.inc({ method: "register", status: "failure" });
      return err;
    };
    if (!deps.registrationEnabled)
      throw fail(new AppError("REGISTRATION_DISABLED", "registration is disabled"));
    try {
      const data = parseInput(RegisterInput, input);
      assertStrongPassword(data.password, data.username);
      users.assertAvailable(data);
      const org =
        data.organization_name === undefined
          ? createPersonalOrganization(deps.orgs, data.username)
          : createOrganization(deps.orgs, data.organization_name);
      const user = await users.provision(org.id, data, org.admin).catch((err) => {
        deps.orgs.delete(org.id); // no organization left behind without its user
        throw err;
      });
      metrics.authAttempts.inc({ method: "register", status: "success" });
      return await deps.auth.issue(user);
    } catch (err) {
      throw fail(err);
    }
  }

  /**
   * Checks the current password (401 when wrong), sets the new one, and
   * revokes every session: refresh tokens now, access tokens issued before
   * this moment on their next use. API keys are the user's automation and
   * keep working unless `revoke_api_keys` asks to revoke them all.
   */
  async function changePassword(
    actor: Actor,
    input: { current_password: string; new_password: string; revoke_api_keys?: boolean },
  ) {
    requireSignedIn(actor);
    const data = parseInput(ChangePasswordInput, input);
    const user = usersRepo.byId(actor.userId);
    if (!user || !(await passwords.verify(user.password_hash, data.current_password))) {
      metrics.authAttempts.inc({ method: "change_password", status: "failure" });
      throw new AppError("INVALID_CREDENTIALS", "current password is incorrect");
    }
    if (data.new_password === data.current_password) {
      throw new AppError("VALIDATION", "the new password must differ from the current one");
    }
    assertStrongPassword(data.new_password, user.username);
    const hash = await passwords.hash(data.new_password);
    usersRepo.update(user.id, {
      password_hash: hash,
      password_changed_at: nowIso(),
      must_change_password: false,
    });
    deps.auth.revokeAllFor(user.id);
    if (data.revoke_api_keys) deps.revokeApiKeys(user.id);
    metrics.authAttempts.inc({ method: "change_password", status: "success" });
  }

  function profile(actor: Actor): Profile {
    const user = usersRepo.byId(actor.userId);
    if (!user) throw new AppError("UNAUTHENTICATED", "unknown user");
    return { ...users.detail(user), home_directory_id: deps.ensureHome(actor) };
  }

  /** Changes the caller's username, email or display name; taken names answer 409. */
  function updateProfile(actor: Actor, input: ProfileUpdate): Profile {
    requireSignedIn(actor);
    const data = parseInput(ProfileUpdateInput, input);
    users.assertAvailable(data, actor.userId);
    conflictOnUnique("username or email already exists", () => usersRepo.update(actor.userId, data));
    return profile(actor);
  }

  return { register, changePassword, profile, updateProfile };
}

export type AccountService = ReturnType<typeof createAccountService>;
