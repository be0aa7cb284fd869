import { defineConfig } from "vitest/config"

/**
 * The HTTP suites that set up their data through the API alone, run again with every server on
 * its own database in the tests' PostgreSQL cluster (the storage contract covers the rest of
 * the PostgreSQL backend's behaviour).
 */
export default defineConfig({
  test: {
    include: [
      "test/answer.test.ts",
      "test/auth.test.ts",
      "test/client.test.ts",
      "test/errors.test.ts",
      "test/adminKeys.test.ts",
      "test/cors.test.ts",
      "test/openapi.test.ts",
      "test/security.test.ts",
      "test/usage.test.ts",
      "test/fuzz.test.ts",
      "test/load.test.ts",
      "test/memoryReads.test.ts",
      "test/deleteUser.test.ts",
      "test/deleteMemory.test.ts",
      "test/graph.test.ts",
      "test/retrieval.test.ts",
      "test/mcp.test.ts",
      "test/cli.test.ts",
      "test/updateMemory.test.ts",
      "test/batch.test.ts",
      "test/adminStats.test.ts",
      "test/ingest.test.ts",
      "test/extraction.test.ts",
      "test/vectors.test.ts"
    ],
    env: { MEMORY_TEST_BACKEND: "postgres" },
    globalSetup: ["test/support/consoleBuild.ts", "test/support/postgresCluster.ts"],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    maxWorkers: 2,
    minWorkers: 1
  }
})
