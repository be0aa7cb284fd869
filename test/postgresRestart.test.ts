import { expect, it } from "@effect/vitest"
import { createDatabase, startCluster } from "../scripts/postgres/cluster.js"
import { startProcess } from "./support/processes.js"
import { tempDataRoot } from "./support/server.js"

const HEADERS = { authorization: "Bearer k", "content-type": "application/json" }

const search = (base: string) =>
  fetch(`${base}/v1/search`, { method: "POST", headers: HEADERS, body: JSON.stringify({ user_id: "alice", query: "beagle" }) })

it("PostgreSQL stopped under a running service: 503 in the envelope, never a hang; back without restarting the service", async () => {
  const cluster = await startCluster({ fsync: false })
  const service = await startProcess({ SERVICE_API_KEY: "k", SERVICE_DATA_ROOT: tempDataRoot(), SERVICE_DATABASE_URL: await createDatabase(cluster.url) })
  try {
    const base = `http://127.0.0.1:${service.port}`
    const added = await fetch(`${base}/v1/memories`, {
      method: "POST",
      headers: HEADERS,
      body: JSON.stringify({ user_id: "alice", messages: [{ role: "user", content: "I adopted a beagle" }], infer: false, async_mode: false })
    })
    expect(added.status).toBe(200)
    cluster.halt()
    const started = Date.now()
    const refused = await search(base)
    expect(Date.now() - started).toBeLessThan(10_000)
    expect(refused.status).toBe(503)
    expect(await refused.json()).toMatchObject({ code: "vector_store_unavailable", details: { cause: "database_unreachable" } })
    cluster.start()
    let status = 0
    for (let attempt = 0; attempt < 40 && status !== 200; attempt++) {
      status = (await search(base)).status
      if (status !== 200) await new Promise((resolve) => setTimeout(resolve, 250))
    }
    expect(status).toBe(200)
    const hits = (await (await search(base)).json() as { hits: Array<{ content: string }> }).hits
    expect(hits.map((hit) => hit.content)).toEqual(["I adopted a beagle"])
  } finally {
    service.child.kill("SIGTERM")
    await service.exited
    cluster.stop()
  }
}, 60_000)
