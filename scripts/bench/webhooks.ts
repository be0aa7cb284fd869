/**
 * Webhooks: what delivering every change costs the writes, and how soon changes arrive. For each
 * backend (the embedded SQLite, then PostgreSQL in a throwaway cluster), the same verbatim
 * ingests (4 clients, 4 users) with webhooks off, then on with a receiver on loopback that
 * answers at once, one that answers after 250 ms, and one that is down until every write is done.
 * Prints the ingests' client-side latency and throughput beside the run without webhooks, and
 * how long after its write each change reached the receiver.
 *
 * Usage: npm run bench:webhooks [-- --writes 400]
 */
import * as NodeHttp from "node:http"
import type { AddressInfo } from "node:net"
import * as NodeFs from "node:fs"
import * as NodeOs from "node:os"
import * as NodePath from "node:path"
import { createDatabase, startCluster } from "../postgres/cluster.js"
import { arg, percentile, postJson, startService } from "./support.js"

const WRITES = arg("writes", 400)
const CLIENTS = 4
const SECRET = "bench-webhook-secret"

type Mode = "off" | "fast receiver" | "receiver answering in 250 ms" | "receiver down during the writes"
const MODES: ReadonlyArray<Mode> = ["off", "fast receiver", "receiver answering in 250 ms", "receiver down during the writes"]

/** A receiver that notes when each session's change arrived; down until `up`. */
const startReceiver = async (delayMs: number) => {
  const arrivedAt = new Map<string, number>()
  const server = NodeHttp.createServer((request, response) => {
    const chunks: Array<Buffer> = []
    request.on("data", (chunk: Buffer) => chunks.push(chunk))
    request.on("end", () => {
      const { session_id: sessionId } = JSON.parse(Buffer.concat(chunks).toString("utf8")) as { session_id: string }
      if (!arrivedAt.has(sessionId)) arrivedAt.set(sessionId, performance.now())
      setTimeout(() => response.writeHead(204).end(), delayMs)
    })
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  const port = (server.address() as AddressInfo).port
  return {
    url: `http://127.0.0.1:${port}/hook`,
    arrivedAt,
    down: () => new Promise<void>((resolve) => {
      server.close(() => resolve())
      server.closeAllConnections()
    }),
    up: () => new Promise<void>((resolve) => server.listen(port, "127.0.0.1", resolve))
  }
}

const round = (n: number) => Math.round(n * 10) / 10

const run = async (backendEnv: () => Promise<Record<string, string>>, mode: Mode) => {
  const receiver = await startReceiver(mode === "receiver answering in 250 ms" ? 250 : 0)
  if (mode === "receiver down during the writes") await receiver.down()
  const env = mode === "off" ? {} : { SERVICE_WEBHOOK_URL: receiver.url, SERVICE_WEBHOOK_SECRET: SECRET, SERVICE_WEBHOOK_RETRY_MAX_MS: "1000" }
  const dataRoot = NodeFs.mkdtempSync(NodePath.join(NodeOs.tmpdir(), "bench-webhooks-"))
  const service = await startService(dataRoot, { ...await backendEnv(), ...env })
  const writtenAt = new Map<string, number>()
  const latencies: Array<number> = []
  const started = performance.now()
  let next = 0
  await Promise.all(Array.from({ length: CLIENTS }, async (_, client) => {
    while (next < WRITES) {
      const i = next++
      const sessionId = `s${i}`
      const before = performance.now()
      // A refused write throws.
      await postJson(service.port, "/v1/memories", {
        user_id: `user${client}`,
        session_id: sessionId,
        infer: false,
        async_mode: false,
        messages: [{ content: `Note ${i}: the meeting moved to room ${i % 17}.` }]
      })
      const after = performance.now()
      latencies.push(after - before)
      writtenAt.set(sessionId, after)
    }
  }))
  const elapsed = performance.now() - started
  let drainedMs: number | null = null
  if (mode !== "off") {
    if (mode === "receiver down during the writes") await receiver.up()
    const upAt = performance.now()
    while (receiver.arrivedAt.size < WRITES) {
      if (performance.now() - upAt > 120_000) throw new Error(`only ${receiver.arrivedAt.size} of ${WRITES} changes arrived`)
      await new Promise((resolve) => setTimeout(resolve, 20))
    }
    drainedMs = Math.max(...receiver.arrivedAt.values()) - upAt
  }
  await service.stop()
  await receiver.down().catch(() => undefined)
  NodeFs.rmSync(dataRoot, { recursive: true, force: true })
  const sorted = latencies.sort((a, b) => a - b)
  const lags = [...writtenAt].map(([session, at]) => (receiver.arrivedAt.get(session) ?? at) - at).sort((a, b) => a - b)
  return {
    p50: round(percentile(sorted, 0.5)),
    p99: round(percentile(sorted, 0.99)),
    perSecond: Math.round(WRITES / (elapsed / 1000)),
    lag: mode === "off" || mode === "receiver down during the writes" ? "—" : `${round(percentile(lags, 0.5))} / ${round(percentile(lags, 0.99))}`,
    drained: drainedMs === null ? "—" : `${round(drainedMs)}`
  }
}

const main = async () => {
  console.log(`${WRITES} verbatim ingests of one turn, ${CLIENTS} clients over ${CLIENTS} users; client-side ms`)
  console.log("| backend | webhooks | ingest p50 / p99 | ingests/s | change arrived after its write, p50 / p99 | all arrived, after the last write or the receiver's return |")
  console.log("|---|---|---|---|---|---|")
  const cluster = await startCluster({ fsync: true })
  try {
    const backends: ReadonlyArray<[string, () => Promise<Record<string, string>>]> = [
      ["SQLite", async () => ({})],
      ["PostgreSQL", async () => ({ SERVICE_DATABASE_URL: await createDatabase(cluster.url) })]
    ]
    for (const [backend, backendEnv] of backends) {
      for (const mode of MODES) {
        const figures = await run(backendEnv, mode)
        console.log(`| ${backend} | ${mode} | ${figures.p50} / ${figures.p99} | ${figures.perSecond} | ${figures.lag} | ${figures.drained} |`)
      }
    }
  } finally {
    cluster.stop()
  }
}

await main()
