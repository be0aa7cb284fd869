import { defineConfig } from "vitest/config"

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    // The console's build, which the server serves at /console, made before any test runs.
    globalSetup: ["test/support/consoleBuild.ts"],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // Several suites start real server processes; two cores are shared between them.
    maxWorkers: 2,
    minWorkers: 1
  }
})
