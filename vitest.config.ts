import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    exclude: ["test/reliability/**", "node_modules/**"],
    pool: "forks",
    globalSetup: ["test/setup/keys.ts"],
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
});
