import { describe, expect, it } from "@effect/vitest"
import { inject } from "vitest"
import { startCluster } from "../scripts/postgres/cluster.js"
import { databaseOutageRun, replicaKillRun } from "../scripts/reliability/crashRuns.js"
import { expectAllHeld, shortCrashRun } from "./support/crashRuns.js"

// The short variants of `npm run crash -- --backend postgres`: two replicas on one database under mixed writes.
describe("crash safety on PostgreSQL (two replica processes)", () => {
  it("one replica SIGKILLed and restarted each cycle: every acknowledged write there once, every job resumed and finished, no 5xx", async () => {
    const report = await replicaKillRun({ ...shortCrashRun(3, [800, 1_600]), clusterUrl: inject("postgresUrl"), replicas: 2 })
    expectAllHeld(report)
    expect(report.kills).toBe(3)
    expect(report.acknowledged).toBeGreaterThan(30)
  }, 150_000)

  it("PostgreSQL halted and started under traffic: 503 in the envelope while it is down, then every acknowledged write there once and every job finished", async () => {
    const cluster = await startCluster({ fsync: false })
    try {
      const report = await databaseOutageRun({ ...shortCrashRun(2, [800, 1_600]), cluster, replicas: 2, downMs: [1_000, 2_000] })
      expectAllHeld(report)
      expect(report.outages).toBe(2)
      expect(report.refused).toBeGreaterThan(0)
      expect(report.acknowledged).toBeGreaterThan(20)
    } finally {
      cluster.stop()
    }
  }, 150_000)
})
