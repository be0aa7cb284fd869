import { expect } from "@effect/vitest"
import type { CrashLoopReport } from "../../scripts/reliability/crashLoop.js"
import type { CrashRunSettings } from "../../scripts/reliability/crashRuns.js"
import { startProcess } from "./processes.js"
import { API_KEY } from "./server.js"

/** The crash runs' settings for a short run in CI: the service as users run it, its bundle. */
export const shortCrashRun = (cycles: number, uptimeMs: readonly [number, number]): CrashRunSettings => ({
  cycles,
  clients: 6,
  users: 3,
  uptimeMs,
  seed: 20261122,
  apiKey: API_KEY,
  launch: async (dataRoot, env) => {
    const service = await startProcess({ SERVICE_API_KEY: API_KEY, SERVICE_DATA_ROOT: dataRoot, ...env })
    return { port: service.port, kill: (signal) => service.child.kill(signal), exited: service.exited }
  }
})

/** Every promise of a crash run held: nothing lost or duplicated, every job finished, storage sound, a clean final stop. */
export const expectAllHeld = (report: CrashLoopReport) => {
  expect(report.problems).toEqual([])
  expect(report.lostWrites).toBe(0)
  expect(report.duplicatedWrites).toBe(0)
  expect(report.jobsNotFinished).toBe(0)
  expect(report.integrityFailures).toBe(0)
  expect(report.cleanStop).toBe(true)
}
