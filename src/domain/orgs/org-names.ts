import { conflictOnUnique } from "../../db/unique.ts";
import { AppError } from "../../errors.ts";
import type { OrgsRepo } from "./orgs.repo.ts";

const TAKEN = "an organization with that name already exists";

/**
 * Organization names are unique instance-wide, case-insensitively (409
 * otherwise): the name is how people and the instance admin tell tenants
 * apart. The unique index closes the race between check and insert.
 */
export function createOrganization(orgs: OrgsRepo, name: string) {
  if (orgs.nameTaken(name)) throw new AppError("CONFLICT", TAKEN);
  return conflictOnUnique(TAKEN, () => orgs.create(name));
}

export function renameOrganization(orgs: OrgsRepo, id: string, name: string): void {
  if (orgs.nameTaken(name, id)) throw new AppError("CONFLICT", TAKEN);
  conflictOnUnique(TAKEN, () => orgs.rename(id, name));
}

/**
 * A new user's personal organization: named after them, or, when another
 * organization has that name, after them with a short random suffix.
 */
export function createPersonalOrganization(orgs: OrgsRepo, username: string) {
  for (let i = 0; i < 5; i++) {
    const name = i === 0 ? username : `${username}-${Math.random().toString(36).slice(2, 6)}`;
    if (!orgs.nameTaken(name)) return createOrganization(orgs, name);
  }
  throw new AppError("CONFLICT", "could not find a free organization name");
}
