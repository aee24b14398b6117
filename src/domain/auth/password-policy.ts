import { AppError } from "../../errors.ts";
import { COMMON_PASSWORDS } from "./common-passwords.ts";

/** Shortest password accepted (docs/api.md: shorter than 10 characters is weak). */
export const MIN_PASSWORD_LENGTH = 10;
/** Longest password accepted: argon2 cost must not depend on a client's whim. */
export const MAX_PASSWORD_LENGTH = 1024;

const COMMON = new Set(COMMON_PASSWORDS);

/** The reason `password` is weak for `username`, or undefined when it is acceptable. */
export function weakPasswordReason(password: string, username: string): string | undefined {
  if (password.length < MIN_PASSWORD_LENGTH) return `must be at least ${MIN_PASSWORD_LENGTH} characters`;
  if (password.length > MAX_PASSWORD_LENGTH) return `must be at most ${MAX_PASSWORD_LENGTH} characters`;
  const lower = password.toLowerCase();
  if (username && lower.includes(username.toLowerCase())) return "must not contain the username";
  if (new Set(lower).size < 4) return "uses too few distinct characters";
  if (/^\d+$/.test(lower)) return "must not be only digits";
  // "dragon2024!" and "password123" are the common word with a decoration.
  const stem = lower.replace(/[\d\W_]+$/u, "");
  const letters = lower.replace(/[\W_]+/gu, "");
  if (COMMON.has(lower) || (stem.length > 0 && COMMON.has(stem)) || isRun(lower) || isRepeat(letters)) {
    return "is too common";
  }
  return undefined;
}

/** Throws 400 ERR_WEAK_PASSWORD unless `password` passes the policy. */
export function assertStrongPassword(password: string, username: string): void {
  const reason = weakPasswordReason(password, username);
  if (reason) throw new AppError("WEAK_PASSWORD", `password ${reason}`, { rule: reason });
}

/** True for ascending or descending character runs such as "1234567890" or "abcdefghijk". */
function isRun(s: string): boolean {
  let up = true;
  let down = true;
  for (let i = 1; i < s.length; i++) {
    const d = s.charCodeAt(i) - s.charCodeAt(i - 1);
    if (d !== 1) up = false;
    if (d !== -1) down = false;
  }
  return up || down;
}

/** True when `s` is one shorter string repeated, such as "abcabcabc" or "dragondragon". */
function isRepeat(s: string): boolean {
  return s.length > 0 && (s + s).indexOf(s, 1) < s.length;
}
