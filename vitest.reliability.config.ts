import { defineConfig } from "vitest/config";

/**
 * The long reliability suite (`npm run test:reliability`): crash, load, fault
 * and hostile-client tests against real server processes. Files run one at a
 * time so a load test does not starve a crash test of the two CPUs.
 */
export default defineConfig({
  test: {
    include: ["test/reliability/**/*.test.ts"],
    pool: "forks",
    globalSetup: ["test/setup/keys.ts"],
    fileParallelism: false,
    testTimeout: 180_000,
    hookTimeout: 120_000,
  },
});
