import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    // The only bound on a test's waits (they wait for events, never a deadline of their own):
    // generous, so a machine with both cores busy makes the suite slower, not red.
    testTimeout: 240_000,
    hookTimeout: 240_000,
    pool: "forks",
    globalSetup: ["test/support/global-setup.ts"],
  },
});
