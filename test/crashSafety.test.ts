import { describe, expect, it } from "@effect/vitest"
import { sqliteCrashRun } from "../scripts/reliability/crashRuns.js"
import { expectAllHeld, shortCrashRun } from "./support/crashRuns.js"

// The short variant of `npm run crash`: a few SIGKILLs of a real process under mixed writes.
describe("crash safety (real processes, SIGKILL)", () => {
  it("after every restart each acknowledged write is there once, every job ends and every file passes integrity_check", async () => {
    const report = await sqliteCrashRun(shortCrashRun(3, [800, 1_600]))
    expectAllHeld(report)
    expect(report.kills).toBe(3)
    expect(report.acknowledged).toBeGreaterThan(30)
  }, 120_000)
})
