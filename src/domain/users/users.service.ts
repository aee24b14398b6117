import { conflictOnUnique } from "../../db/unique.ts";
import { AppError, notFound } from "../../errors.ts";
import { newId, nowIso } from "../../platform/ids.ts";
import type { PasswordHasher } from "../../platform/passwords.ts";
import { createKeyedLimit, createLimit } from "../../platform/pool.ts";
import { type Actor, requirePermission } from "../actor.ts";
import { assertStrongPassword } from "../auth/password-policy.ts";
import { type Page, PageQuery } from "../page.schemas.ts";
import { parseInput } from "../parse-input.ts";
import type { RolesService } from "../roles/roles.service.ts";
import { assertMayActOn } from "./delegation.ts";
import { permissionsOf, type UserRow, type UsersRepo } from "./users.repo.ts";
import {
  type CreateUser,
  CreateUserInput,
  ResetPasswordInput,
  type UpdateUser,
  UpdateUserInput,
  type UserDetail,
} from "./users.schemas.ts";

/** The refusal of a reset of one's own password: that takes the current one. */
const OWN_PASSWORD =
  "you cannot reset your own password; change it with your current password (PUT /api/v1/auth/password)";

/** Managing the users of one's organization needs this (Admin holds it through `*:*`). */
export const USER_MANAGE = "user:manage";

export interface NewAccount {
  username: string;
  email: string;
  password: string;
  display_name?: string | null;
}

/**
 * User management within the actor's organization (`user:manage`): create,
 * list, get, update, deactivate, reset password. Acting on another user obeys
 * the delegation rule (delegation.ts): only on users whose permissions are a
 * subset of one's own, and on instance admins only as an instance admin. Deactivation and password
 * resets end the user's sessions at once (bearer tokens check `is_active` and
 * `password_changed_at` on every request, API keys `is_active`); a reset
 * revokes their API keys too unless asked not to.
 */
export function createUsersService(deps: {
  users: UsersRepo;
  roles: RolesService;
  passwords: PasswordHasher;
  revokeSessions: (userId: string) => void;
  /** Revokes every API key of the user. */
  revokeApiKeys: (userId: string) => void;
}) {
  const { users, roles, passwords } = deps;

  /**
   * Hashes made at a signed-in caller's request (creating users, resetting
   * passwords) run one at a time per caller and two at once in all. An
   * Argon2 hash holds one of libuv's four threads (and its memory cost) for
   * ~100 ms: a burst of resets by one organization admin queued every other
   * user's file reads and sign-ins behind it for seconds. Sign-in and
   * registration hash outside this gate (they are rate limited per address).
   */
  const perCaller = createKeyedLimit(1);
  const inAll = createLimit(2);
  const hashFor = (by: Actor | undefined, password: string): Promise<string> =>
    by ? perCaller(by.userId, () => inAll(() => passwords.hash(password))) : passwords.hash(password);

  function detail(u: UserRow): UserDetail {
    const held = users.rolesOf(u.id);
    return {
      id: u.id,
      username: u.username,
      email: u.email,
      display_name: u.display_name,
      organization_id: u.organization_id,
      is_active: u.is_active,
      is_instance_admin: u.is_instance_admin,
      must_change_password: u.must_change_password,
      role: held[0]?.name ?? "",
      roles: held.map((r) => ({ id: r.id, name: r.name })),
      permissions: permissionsOf(held),
      created_at: u.created_at,
      updated_at: u.updated_at,
      last_login_at: u.last_login_at,
    };
  }

  /** 409 when the username or email is taken by another user (both are unique instance-wide). */
  function assertAvailable(fields: { username?: string; email?: string }, exceptId?: string): void {
    const byName = fields.username ? users.byUsername(fields.username) : undefined;
    if (byName && byName.id !== exceptId) throw new AppError("CONFLICT", "username already exists");
    const byEmail = fields.email ? users.byEmail(fields.email) : undefined;
    if (byEmail && byEmail.id !== exceptId) throw new AppError("CONFLICT", "email already exists");
  }

  /**
   * Creates a user in `organizationId` holding `roleId`, with no permission
   * check: for register, organization creation and `create` below (`by`:
   * the caller it is made for, whose hashes queue one at a time). Checks
   * the password policy and uniqueness; stores only the argon2id hash.
   */
  async function provision(
    organizationId: string,
    account: NewAccount,
    roleId: string,
    by?: Actor,
  ): Promise<UserRow> {
    assertStrongPassword(account.password, account.username);
    assertAvailable(account);
    const hash = await hashFor(by, account.password);
    assertAvailable(account); // again: hashing yielded to other requests
    const now = nowIso();
    const id = newId();
    conflictOnUnique("username or email already exists", () =>
      users.insertWithRole(
        {
          id,
          organization_id: organizationId,
          username: account.username,
          email: account.email,
          display_name: account.display_name ?? null,
          password_hash: hash,
          created_at: now,
          updated_at: now,
        },
        roleId,
      ),
    );
    return users.byId(id)!;
  }

  function mustGet(actor: Actor, id: string): UserRow {
    const user = users.byIdInOrg(actor.organizationId, id);
    if (!user) throw notFound("user");
    return user;
  }

  /** A user of the actor's organization the actor may act on (the delegation rule), else 404/403. */
  function target(actor: Actor, id: string): UserRow {
    const user = mustGet(actor, id);
    assertMayActOn(actor, user, permissionsOf(users.rolesOf(user.id)));
    return user;
  }

  /** Setting or clearing the instance-admin flag: instance admins only, never the last one. */
  function checkInstanceAdminChange(actor: Actor, user: UserRow, wanted: boolean | undefined): void {
    if (wanted === undefined || wanted === user.is_instance_admin) return;
    if (!actor.isInstanceAdmin) {
      throw new AppError("PERMISSION_DENIED", "only an instance administrator may grant or remove that");
    }
    if (!wanted && user.is_active && users.countInstanceAdmins() <= 1) {
      throw new AppError("CONFLICT", "cannot remove the last active instance administrator");
    }
  }

  async function create(actor: Actor, input: CreateUser): Promise<UserDetail> {
    requirePermission(actor, USER_MANAGE);
    const data = parseInput(CreateUserInput, input);
    const role = roles.resolve(actor, data.role ?? "Member");
    roles.checkGrantable(actor, role.permissions);
    return detail(await provision(actor.organizationId, data, role.id, actor));
  }

  function list(actor: Actor, page: Partial<Page>) {
    requirePermission(actor, USER_MANAGE);
    const { limit, offset } = parseInput(PageQuery, page);
    return {
      users: users.listInOrg(actor.organizationId, limit, offset).map(detail),
      total: users.countInOrg(actor.organizationId),
      limit,
      offset,
    };
  }

  function update(actor: Actor, id: string, input: UpdateUser): UserDetail {
    requirePermission(actor, USER_MANAGE);
    const data = parseInput(UpdateUserInput, input);
    const user = target(actor, id);
    if (data.is_active === false && user.id === actor.userId) {
      throw new AppError("VALIDATION", "you cannot deactivate yourself");
    }
    checkInstanceAdminChange(actor, user, data.is_instance_admin);
    if (data.is_active === false && user.is_instance_admin && users.countInstanceAdmins() <= 1) {
      throw new AppError("CONFLICT", "cannot deactivate the last active instance administrator");
    }
    const role = data.role === undefined ? undefined : roles.resolve(actor, data.role);
    if (role) roles.checkGrantable(actor, role.permissions);
    if (data.is_active === false || (role && !(role.is_builtin && role.name === "Admin"))) {
      roles.assertNotLastAdmin(actor, user);
    }
    if (data.email) assertAvailable({ email: data.email }, user.id);
    const set = {
      ...(data.display_name !== undefined ? { display_name: data.display_name } : {}),
      ...(data.email !== undefined ? { email: data.email } : {}),
      ...(data.is_active !== undefined ? { is_active: data.is_active } : {}),
      ...(data.is_instance_admin !== undefined ? { is_instance_admin: data.is_instance_admin } : {}),
    };
    conflictOnUnique("email already exists", () => users.update(user.id, set));
    if (role) users.replaceRoles(user.id, role.id);
    // Losing the flag or the account ends every session: tokens carry neither, but must not outlive them.
    if (data.is_active === false || data.is_instance_admin === false) deps.revokeSessions(user.id);
    return detail(users.byId(user.id)!);
  }

  /**
   * Sets another user's password (they must change it at next sign-in) and
   * ends their sessions; their API keys are revoked too unless
   * `revoke_api_keys` is false. One's own password is changed with the
   * current one (account.service.ts), never reset: 400.
   */
  async function resetPassword(
    actor: Actor,
    id: string,
    input: { new_password: string; revoke_api_keys?: boolean },
  ): Promise<void> {
    requirePermission(actor, USER_MANAGE);
    const { new_password, revoke_api_keys = true } = parseInput(ResetPasswordInput, input);
    const user = target(actor, id);
    // One's own password changes only with the current one: else a stolen session (a token lifted
    // from a browser) would set a password of its own and keep the account for good.
    if (user.id === actor.userId) {
      throw new AppError("VALIDATION", OWN_PASSWORD, { use: "PUT /api/v1/auth/password" });
    }
    assertStrongPassword(new_password, user.username);
    const hash = await hashFor(actor, new_password);
    // Again: while the hash waited its turn the target may have been promoted past the actor.
    target(actor, id);
    // The user chose none of this: they must pick their own at next sign-in.
    users.update(user.id, { password_hash: hash, password_changed_at: nowIso(), must_change_password: true });
    deps.revokeSessions(user.id);
    if (revoke_api_keys) deps.revokeApiKeys(user.id);
  }

  return {
    detail,
    provision,
    assertAvailable,
    create,
    list,
    get: (actor: Actor, id: string): UserDetail => {
      requirePermission(actor, USER_MANAGE);
      return detail(mustGet(actor, id));
    },
    update,
    deactivate: (actor: Actor, id: string): UserDetail => update(actor, id, { is_active: false }),
    resetPassword,
  };
}

export type UsersService = ReturnType<typeof createUsersService>;
