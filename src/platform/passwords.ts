/**
 * @node-rs/argon2 is loaded on first use: its native addon is dlopened then,
 * not while the server starts (start-up evaluates no native code but SQLite's).
 */
let argon2: Promise<typeof import("@node-rs/argon2")> | undefined;
const loadArgon2 = () => (argon2 ??= import("@node-rs/argon2"));
type HashOptions = Parameters<typeof import("@node-rs/argon2").hash>[1];
const hash = async (password: string, options: HashOptions) => (await loadArgon2()).hash(password, options);
const verify = async (stored: string, password: string) => (await loadArgon2()).verify(stored, password);

/** @node-rs/argon2's Algorithm.Argon2id (a const enum, so not importable as a value). */
const ARGON2ID = 2;

export interface PasswordCost {
  memoryKib: number;
  iterations: number;
}

/** argon2id hashes (PHC strings); cost from configuration. */
export function createPasswordHasher(cost: PasswordCost) {
  const options = {
    algorithm: ARGON2ID,
    memoryCost: cost.memoryKib,
    timeCost: cost.iterations,
    parallelism: 1,
  };
  let dummy: Promise<string> | undefined;
  return {
    hash: (password: string) => hash(password, options),
    verify: async (stored: string, password: string) => {
      try {
        return await verify(stored, password);
      } catch {
        return false;
      }
    },
    /**
     * Spends the same work as a real verification against a fixed hash, so a
     * login for an unknown user takes as long as one with a wrong password.
     */
    verifyDummy: async (password: string) => {
      dummy ??= hash("attic-dummy-password-for-timing", options);
      await verify(await dummy, password).catch(() => false);
      return false as const;
    },
  };
}

export type PasswordHasher = ReturnType<typeof createPasswordHasher>;
