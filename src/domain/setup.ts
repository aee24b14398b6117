import { randomBytes } from "node:crypto";
import { join } from "node:path";
import type { Config } from "../config/schema.ts";
import type { Db } from "../db/client.ts";
import type { Logger } from "../log.ts";
import { newId, nowIso } from "../platform/ids.ts";
import { writePrivateFile } from "../platform/local-files.ts";
import type { PasswordHasher } from "../platform/passwords.ts";
import { anyOrganization, insertFirstAdmin } from "./setup.repo.ts";

/**
 * First start: on an empty database, creates the `Default` organization, its
 * built-in roles and the `admin` user. The password is
 * `auth.initial_admin_password`, or a random one printed once and written to
 * DATA_DIR/initial-admin-password (0600). Never a fixed default.
 */
export async function bootstrap(db: Db, cfg: Config, passwords: PasswordHasher, log: Logger): Promise<void> {
  if (anyOrganization(db)) return;
  const configured = cfg.auth.initial_admin_password;
  const password = configured ?? randomBytes(18).toString("base64url");
  const hash = await passwords.hash(password);
  const now = nowIso();
  const orgId = newId();
  const userId = newId();
  const file = join(cfg.storage.data_dir, "initial-admin-password");
  // Written before the admin exists: a crash in between must not leave an admin nobody can sign in as.
  if (configured === undefined) writePrivateFile(file, `${password}\n`);
  insertFirstAdmin(db, {
    orgId,
    userId,
    passwordHash: hash,
    mustChangePassword: configured === undefined,
    now,
  });
  if (configured === undefined) {
    // Printed once, on purpose: the operator needs it to sign in the first time.
    log.warn(
      { username: "admin", initial_password: password, file },
      "created the first administrator; sign in and change this password",
    );
  } else {
    log.info({ username: "admin" }, "created the first administrator with auth.initial_admin_password");
  }
}
