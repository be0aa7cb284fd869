import { describe, expect, it } from "@effect/vitest"
import { runCrashLoop } from "../scripts/reliability/crashLoop.js"
import { startProviderStub } from "../scripts/stubs/llm-providers.js"
import { startProcess } from "./support/processes.js"
import { API_KEY, tempDataRoot } from "./support/server.js"

// The short variant of `npm run crash`: a few SIGKILLs of a real process under mixed writes.
describe("crash safety (real processes, SIGKILL)", () => {
  it("after every restart each acknowledged write is there once, every job ends and every file passes integrity_check", async () => {
    const stub = await startProviderStub({ provider: "openai" })
    try {
      const dataRoot = tempDataRoot()
      const report = await runCrashLoop({
        kills: 3,
        clients: 6,
        users: 3,
        uptimeMs: [800, 1_600],
        seed: 20261122,
        apiKey: API_KEY,
        dataRoot,
        start: async () => {
          const service = await startProcess({
            SERVICE_API_KEY: API_KEY,
            SERVICE_DATA_ROOT: dataRoot,
            SERVICE_LLM_PROVIDER: "openai",
            SERVICE_LLM_API_KEY: "stub-key",
            SERVICE_LLM_BASE_URL: stub.url
          })
          return { port: service.port, kill: (signal) => service.child.kill(signal), exited: service.exited }
        }
      })
      expect(report.problems).toEqual([])
      expect(report.kills).toBe(3)
      expect(report.acknowledged).toBeGreaterThan(30)
      expect(report.lostWrites).toBe(0)
      expect(report.duplicatedWrites).toBe(0)
      expect(report.integrityFailures).toBe(0)
      expect(report.cleanStop).toBe(true)
    } finally {
      await stub.close()
    }
  }, 120_000)
})
