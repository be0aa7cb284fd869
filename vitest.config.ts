import { defineConfig } from "vitest/config"

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // Several suites start real server processes; two cores are shared between them.
    maxWorkers: 2,
    minWorkers: 1
  }
})
