import { defineConfig } from "vitest/config"

/**
 * The HTTP suites whose behaviour is the same on either backend, run again with every server on
 * its own database in the tests' PostgreSQL cluster, and every service process on a fresh
 * deployment of that backend (freshDeployment, test/support/server.ts). They set up and inspect
 * users' data and the control plane's jobs through the API or the backend-neutral fixtures of
 * test/support/userRows.ts. The storage contract (test/storage) covers the rest of the
 * PostgreSQL backend's behaviour.
 *
 * SQLite's alone, and why:
 * - storeCache, retrievalPlans, sqliteClient, bitIndex, checkpointer, crashSafety, dataRootLock:
 *   the store cache, the retrieval legs' query plans and the files, locks and checkpoints of the
 *   embedded backend.
 * - forgetting's cases on the bytes of a user's store file and the control database, and on a
 *   purge killed while another connection holds the control file's write lock (skipped here):
 *   what SQLite keeps in its files and write-ahead logs after a purge, and its file lock.
 * - gracefulShutdown's case of store files closed without a write-ahead log and the data-root
 *   lock released (skipped here): PostgreSQL has neither files nor that lock. Its case of requests
 *   answered and writes and jobs kept runs on both.
 * - controlPlane, consoleBrowser: the control database's file, and a second server refused by
 *   the data-root lock.
 * - consoleApi, observability, tracing, config, secrets: serve files, metrics, traces and
 *   configuration without reaching any stored data; a second run would repeat the same code.
 *   (console runs on both for its request-log test; its static files cost little to serve twice.)
 * - webhooks' cases of refused configurations (no storage is reached) and of an erase cut off
 *   before its store file went (skipped here).
 * - databaseSelection, postgresRestart, replicas, crashSafetyReplicas and migrate pick the
 *   backend (or both ends of a migration) themselves; testCleanUp starts a cluster of its own to
 *   check that what a run leaves is cleaned up.
 * - backup and backupErrors: the embedded backend's backup, verify and restore of store files
 *   (backupPostgres, listed here, covers verify on a PostgreSQL database and pg_dump/pg_restore).
 */
export default defineConfig({
  test: {
    include: [
      "test/adapters/aiSdk.test.ts",
      "test/adapters/langchain.test.ts",
      "test/adminKeys.test.ts",
      "test/adminStats.test.ts",
      "test/answer.test.ts",
      "test/auth.test.ts",
      "test/backupPostgres.test.ts",
      "test/batch.test.ts",
      "test/cli.test.ts",
      "test/client.test.ts",
      "test/console.test.ts",
      "test/cors.test.ts",
      "test/deleteMemory.test.ts",
      "test/deleteUser.test.ts",
      "test/docsRun.test.ts",
      "test/dream.test.ts",
      "test/errors.test.ts",
      "test/extraction.test.ts",
      "test/forgetting.test.ts",
      "test/fuzz.test.ts",
      "test/gracefulShutdown.test.ts",
      "test/graph.test.ts",
      "test/health.test.ts",
      "test/ingest.test.ts",
      "test/isolation.test.ts",
      "test/jobResume.test.ts",
      "test/load.test.ts",
      "test/localEmbeddingService.test.ts",
      "test/mcp.test.ts",
      "test/memoryReads.test.ts",
      "test/modelsPull.test.ts",
      "test/openapi.test.ts",
      "test/openapiReference.test.ts",
      "test/portability.test.ts",
      "test/requestLog.test.ts",
      "test/reembedding.test.ts",
      "test/retrieval.test.ts",
      "test/scope.test.ts",
      "test/security.test.ts",
      "test/text.test.ts",
      "test/updateMemory.test.ts",
      "test/usage.test.ts",
      "test/vectors.test.ts",
      "test/webhooks.test.ts"
    ],
    env: { MEMORY_TEST_BACKEND: "postgres" },
    globalSetup: ["test/support/temporaryFiles.ts", "test/support/build.ts", "test/support/postgresCluster.ts"],
    // Every server here shares one PostgreSQL cluster with the suites' real processes (forgetting's
    // SIGKILL rounds among them) on the same cores: 60 s before a case or hook counts as hung.
    testTimeout: 60_000,
    hookTimeout: 60_000,
    maxWorkers: 2,
    minWorkers: 1
  }
})
