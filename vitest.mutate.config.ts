import { defineConfig } from "vitest/config";

/**
 * The in-process tests that `npm run mutate` runs against each mutant (stryker.config.json).
 * Only tests that import src/ directly belong here: the end-to-end tests run the dist/ bundle,
 * which never contains a mutant, and take minutes. Name a new in-process test `*-unit.test.ts`
 * to have it included (almanac/guides/mutation-testing.md).
 */
export default defineConfig({
  test: {
    include: ["test/runs/*.test.ts", "test/sync/{plan,service,store}.test.ts", "test/wiki/file-refs.test.ts", "test/**/*-unit.test.ts"],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    globalSetup: ["test/support/global-setup.ts"],
  },
});
