import { defineConfig } from "vitest/config"

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    // One temporary directory for everything the run writes, removed at its end; the build the
    // suites start (the bundles, and the console the server serves at /console), made before any
    // test runs when stale; a throwaway PostgreSQL cluster for the PostgreSQL backend's suites.
    globalSetup: ["test/support/temporaryFiles.ts", "test/support/build.ts", "test/support/postgresCluster.ts"],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // Several suites start real server processes; two cores are shared between them.
    maxWorkers: 2,
    minWorkers: 1
  }
})
