import { generateKeyPairSync } from "node:crypto";
import { existsSync, mkdirSync, mkdtempSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** Where the shared test key pair lives: one directory per machine, reused across runs. */
export const TEST_KEYS_DIR = join(tmpdir(), "attic-test-keys-v2");

/**
 * vitest globalSetup: makes the one RS256 4096-bit key pair every test server
 * shares, before any worker starts (generating one takes seconds). It runs
 * once in vitest's main process, so parallel workers never race to write
 * it; the pair is written into a fresh directory that is then renamed into
 * place whole, so a reader sees both files of one pair or none.
 */
export default function setup(): void {
  if (existsSync(join(TEST_KEYS_DIR, "public.pem"))) return;
  const pair = generateKeyPairSync("rsa", {
    modulusLength: 4096,
    publicKeyEncoding: { type: "spki", format: "pem" },
    privateKeyEncoding: { type: "pkcs8", format: "pem" },
  });
  mkdirSync(tmpdir(), { recursive: true });
  const staging = mkdtempSync(join(tmpdir(), "attic-test-keys-new-"));
  writeFileSync(join(staging, "private.pem"), pair.privateKey, { mode: 0o600 });
  writeFileSync(join(staging, "public.pem"), pair.publicKey);
  try {
    renameSync(staging, TEST_KEYS_DIR);
  } catch (err) {
    // Another vitest run (the reliability config, say) placed its pair first: keep that one.
    rmSync(staging, { recursive: true, force: true });
    if (!existsSync(join(TEST_KEYS_DIR, "public.pem"))) throw err;
  }
}
