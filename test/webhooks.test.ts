import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { jsonLines, runToExit, type ServiceProcess, startProcess } from "./support/processes.js"
import {
  authHeaders,
  freshDeployment,
  ingestTurn,
  onPostgres,
  rawFetch,
  type RunningServer,
  sendJson,
  serviceEnv,
  startServer
} from "./support/server.js"
import { withControlFile } from "./support/stores.js"
import { controlRows, seedFacts, userRows } from "./support/userRows.js"
import { type Delivery, eventually, type Receiver, startReceiver } from "./support/webhookReceiver.js"
import { withoutIds } from "./support/randomIds.js"

/**
 * Webhooks on every memory change: each audit event is delivered to a real receiver on loopback
 * that verifies its signature, in order per user, from an outbox written with the change; through
 * receiver outages, refusals, slowness, an outbox over its cap and a SIGKILL of the service.
 */

const SECRET = "whsec-test-4c1d"

/** Fast retries, so that outages of a second or two are seen through within a test. */
const webhookEnv = (receiver: Receiver, extra: Record<string, string> = {}) => ({
  SERVICE_WEBHOOK_URL: receiver.url,
  SERVICE_WEBHOOK_SECRET: SECRET,
  SERVICE_WEBHOOK_RETRY_BASE_MS: "50",
  SERVICE_WEBHOOK_RETRY_MAX_MS: "400",
  SERVICE_ALLOW_PURGE: "true",
  ...extra
})

interface EventView {
  readonly event_id: string
  readonly type: string
  readonly memory_id: string | null
  readonly session_id: string | null
  readonly reason: string | null
  readonly details: Record<string, unknown>
}

/** A user's audit events, oldest first (the order they are delivered in). */
const eventsOf = (baseUrl: string, userId: string) =>
  Effect.map(rawFetch(`${baseUrl}/v1/events?user_id=${userId}&limit=200`, { headers: authHeaders() }), (response) =>
    [...(response.body as { events: ReadonlyArray<EventView & Record<string, unknown>> }).events].reverse())

/** Each delivered change once (a change may arrive more than once), in the order first received, of one user. */
const deliveredOf = (receiver: Receiver, userId: string) => {
  const seen = new Set<string>()
  return receiver.deliveries.filter((delivery) => {
    const { event_id: eventId, user_id: user } = delivery.json as { event_id: string; user_id: string }
    if (user !== userId || seen.has(eventId)) return false
    seen.add(eventId)
    return true
  })
}

/** The answered deliveries' event ids of a user, in the order received: what a receiver would have kept. */
const acceptedIds = (receiver: Receiver, userId: string, accepted: (delivery: Delivery, index: number) => boolean) =>
  receiver.deliveries.filter((delivery, i) => (delivery.json.user_id === userId) && accepted(delivery, i)).map((delivery) => delivery.json.event_id)

/** Sorted keys, no whitespace: the body is the canonical form of its own JSON. */
const canonical = (value: unknown): string =>
  JSON.stringify(value, (_key, inner: unknown) =>
    inner !== null && typeof inner === "object" && !Array.isArray(inner)
      ? Object.fromEntries(Object.entries(inner).sort(([a], [b]) => (a < b ? -1 : 1)))
      : inner)

const stats = (baseUrl: string) =>
  Effect.map(rawFetch(`${baseUrl}/v1/admin/stats`, { headers: authHeaders() }), (response) =>
    (response.body as { webhooks: Record<string, number | boolean> }).webhooks)

/** The webhook counts once they match `expected` (about 10 s at most), or as they are then. */
const statsUntil = (baseUrl: string, expected: Record<string, number>) =>
  Effect.gen(function*() {
    for (let i = 0; i < 400; i++) {
      const counts = yield* stats(baseUrl)
      if (Object.entries(expected).every(([key, value]) => counts[key] === value)) return counts
      yield* Effect.sleep("25 millis")
    }
    return yield* stats(baseUrl)
  })

const metric = (text: string, name: string, label: string) => Number(new RegExp(`^${name}\\{[^}]*="${label}"\\} (\\d+)`, "m").exec(text)?.[1])

const removeMemory = (server: RunningServer, userId: string, memoryId: string, purge: boolean) =>
  rawFetch(`${server.baseUrl}/v1/memories/${memoryId}?user_id=${userId}${purge ? "&purge=true" : ""}`, { method: "DELETE", headers: authHeaders() })

describe("webhooks", () => {
  it.scopedLive("every change (ingest, PATCH, archive, purge, user erase) arrives signed, once, in order, as /v1/events shows it", () =>
    Effect.gen(function*() {
      const receiver = yield* startReceiver(SECRET)
      const server = yield* startServer(webhookEnv(receiver))
      yield* ingestTurn(server.baseUrl, "alice", "I moved to Lisbon in May.")
      yield* seedFacts(server, "alice", [
        { fact_id: "fact_tea", content: "Alice drinks green tea." },
        { fact_id: "fact_bike", content: "Alice rides a red bike." },
        { fact_id: "fact_pin", content: "Alice's locker code is 9321." }
      ])
      const patched = yield* sendJson(`${server.baseUrl}/v1/memories/fact_tea`, { user_id: "alice", content: "Alice drinks black coffee." }, "PATCH")
      expect(patched.status, patched.text).toBe(200)
      expect((yield* removeMemory(server, "alice", "fact_bike", false)).status).toBe(200)
      expect((yield* removeMemory(server, "alice", "fact_pin", true)).status).toBe(200)
      const events = yield* eventsOf(server.baseUrl, "alice")
      expect(events.map((event) => [event.type, event.details.action])).toEqual([
        ["memory_add", "store_turns"],
        ["memory_add", "extract"],
        ["memory_supersede", "update"],
        ["memory_delete", "archive"],
        ["memory_delete", "purge"]
      ])
      yield* eventually("every change of alice", () => deliveredOf(receiver, "alice").length >= events.length)

      const delivered = deliveredOf(receiver, "alice")
      // Exactly the events /v1/events shows, in their order, each with its delivery id and attempt.
      expect(delivered.map((delivery) => { const { attempt: _a, delivery_id: _d, ...event } = delivery.json; return event })).toEqual(events)
      for (const delivery of receiver.deliveries) {
        expect(delivery.signed, delivery.body).toBe(true)
        expect(delivery.headers["content-type"]).toBe("application/json")
        expect(delivery.body).toBe(canonical(delivery.json))
        expect(delivery.json.attempt).toBe(1)
        expect(delivery.json.delivery_id).toMatch(/^dlv_[0-9a-f]{32}$/)
      }
      expect(new Set(receiver.deliveries.map((delivery) => delivery.json.delivery_id)).size).toBe(receiver.deliveries.length)
      // The purge's event carries no statement of what was purged.
      expect(withoutIds(JSON.stringify(delivered.at(-1)!.json))).not.toContain("9321")

      // Erasing the user is announced after every change before it.
      const erased = yield* rawFetch(`${server.baseUrl}/v1/memories?user_id=alice&purge=true`, { method: "DELETE", headers: authHeaders() })
      expect(erased.status, erased.text).toBe(200)
      yield* eventually("the erase", () => deliveredOf(receiver, "alice").length === events.length + 1)
      expect(deliveredOf(receiver, "alice").at(-1)!.json).toMatchObject({
        type: "memory_delete",
        user_id: "alice",
        memory_id: null,
        session_id: null,
        details: { action: "purge_user", purged: true, actor: "bootstrap" },
        attempt: 1
      })
      expect(yield* statsUntil(server.baseUrl, { delivered: events.length + 1 })).toEqual({
        enabled: true,
        database_enabled: true,
        mismatch: false,
        delivered: events.length + 1,
        failed: 0,
        retrying: 0,
        pending: 0,
        dropped: 0
      })
    }))

  it.scopedLive("a receiver down, then failing, then back: nothing lost, each user's changes in order, retried with growing attempts", () =>
    Effect.gen(function*() {
      const receiver = yield* startReceiver(SECRET)
      yield* Effect.promise(() => receiver.down())
      const server = yield* startServer(webhookEnv(receiver))
      for (let i = 0; i < 3; i++) {
        for (const userId of ["ana", "ben"]) expect((yield* ingestTurn(server.baseUrl, userId, `${userId} note ${i}`, `s${i}`)).status).toBe(200)
      }
      const waiting = yield* statsUntil(server.baseUrl, { retrying: 2, pending: 6 })
      expect(waiting).toMatchObject({ delivered: 0, retrying: 2, pending: 6 })
      // Back, but answering 503 and then 429 to the first three requests.
      receiver.answer = (_delivery, index) => ({ status: index === 0 ? 503 : index < 3 ? 429 : 204 })
      yield* Effect.promise(() => receiver.up())
      for (const userId of ["ana", "ben"]) {
        const events = yield* eventsOf(server.baseUrl, userId)
        yield* eventually(`${userId}'s changes`, () => acceptedIds(receiver, userId, (_d, i) => i >= 3).length >= 3)
        expect(acceptedIds(receiver, userId, (_d, i) => i >= 3)).toEqual(events.map((event) => event.event_id))
      }
      const firsts = receiver.deliveries.slice(0, 3).map((delivery) => delivery.json.attempt as number)
      expect(Math.min(...firsts)).toBeGreaterThan(1)
      for (const delivery of receiver.deliveries) expect(delivery.signed).toBe(true)
      const counts = yield* statsUntil(server.baseUrl, { delivered: 6, pending: 0 })
      expect(counts).toMatchObject({ delivered: 6, failed: 0, retrying: 0, pending: 0, dropped: 0 })
      const metrics = (yield* rawFetch(`${server.baseUrl}/metrics`, { headers: authHeaders() })).text
      expect(metric(metrics, "sodamem_webhook_changes_total", "delivered")).toBe(6)
      expect(metric(metrics, "sodamem_webhook_changes_waiting", "pending")).toBe(0)
    }))

  it.scopedLive("a slow receiver delays no request: the writes are answered while it has answered nothing", () =>
    Effect.gen(function*() {
      const receiver = yield* startReceiver(SECRET)
      receiver.answer = () => ({ status: 200, delayMs: 3_000 })
      const server = yield* startServer(webhookEnv(receiver, { SERVICE_WEBHOOK_TIMEOUT_MS: "20000" }))
      for (let i = 0; i < 3; i++) expect((yield* ingestTurn(server.baseUrl, `slow${i}`, `note ${i}`)).status).toBe(200)
      yield* eventually("a delivery under way", () => receiver.deliveries.length > 0)
      for (let i = 3; i < 6; i++) expect((yield* ingestTurn(server.baseUrl, `slow${i}`, `note ${i}`)).status).toBe(200)
      expect(receiver.answered()).toBe(0)
      yield* eventually("every change", () => receiver.answered() >= 6)
    }))

  it.scopedLive("a user erased while a change of theirs is on its way to the receiver hears of that change once", () =>
    Effect.gen(function*() {
      const receiver = yield* startReceiver(SECRET)
      receiver.answer = (_delivery, index) => ({ status: 204, delayMs: index === 0 ? 1_500 : 0 })
      const server = yield* startServer(webhookEnv(receiver))
      yield* ingestTurn(server.baseUrl, "dora", "I keep bees.")
      yield* eventually("the change under way", () => receiver.deliveries.length === 1)
      const erased = yield* rawFetch(`${server.baseUrl}/v1/memories?user_id=dora&purge=true`, { method: "DELETE", headers: authHeaders() })
      expect(erased.status, erased.text).toBe(200)
      // Every request the receiver got, repeats included.
      const received = () => receiver.deliveries.filter((delivery) => delivery.json.user_id === "dora")
      yield* eventually("the erase", () => received().some((delivery) => JSON.stringify(delivery.json.details).includes("purge_user")))
      expect(received().map((delivery) => delivery.json.details)).toEqual([
        expect.objectContaining({ action: "store_turns" }),
        expect.objectContaining({ action: "purge_user" })
      ])
      expect(yield* statsUntil(server.baseUrl, { delivered: 2 })).toMatchObject({ delivered: 2, pending: 0 })
    }))

  it.scopedLive("a 4xx other than 429 is recorded as failed and not sent again; the next change still goes", () =>
    Effect.gen(function*() {
      const receiver = yield* startReceiver(SECRET)
      receiver.answer = (_delivery, index) => ({ status: index === 0 ? 400 : 204 })
      const server = yield* startServer(webhookEnv(receiver))
      yield* ingestTurn(server.baseUrl, "cara", "first")
      yield* eventually("the refusal", () => receiver.answered() === 1)
      yield* ingestTurn(server.baseUrl, "cara", "second", "s2")
      yield* eventually("the second change", () => receiver.answered() === 2)
      const events = yield* eventsOf(server.baseUrl, "cara")
      expect(yield* statsUntil(server.baseUrl, { delivered: 1, failed: 1 })).toMatchObject({ delivered: 1, failed: 1, retrying: 0, pending: 0 })
      // Nothing is sent again after the refusal.
      expect(receiver.deliveries.map((delivery) => delivery.json.event_id)).toEqual(events.map((event) => event.event_id))
    }))

  it.scopedLive("an attempt without an answer within SERVICE_WEBHOOK_TIMEOUT_MS is made again; a redirect is recorded as failed and not sent again", () =>
    Effect.gen(function*() {
      const receiver = yield* startReceiver(SECRET)
      // The first request is answered too late, the second with a redirect, the rest at once.
      receiver.answer = (_delivery, index) => index === 0 ? { status: 204, delayMs: 2_000 } : { status: index === 1 ? 302 : 204 }
      const server = yield* startServer(webhookEnv(receiver, { SERVICE_WEBHOOK_TIMEOUT_MS: "300" }))
      yield* ingestTurn(server.baseUrl, "gus", "first")
      yield* eventually("the redirect", () => receiver.deliveries.length === 2)
      const [late, redirected] = receiver.deliveries
      expect(redirected!.json).toMatchObject({ event_id: late!.json.event_id, attempt: 2 })
      yield* ingestTurn(server.baseUrl, "gus", "second", "s2")
      yield* eventually("the next change", () => receiver.deliveries.length === 3)
      expect(receiver.deliveries[2]!.json).toMatchObject({ session_id: "s2", attempt: 1 })
      expect(yield* statsUntil(server.baseUrl, { delivered: 1, failed: 1 })).toMatchObject({ delivered: 1, failed: 1, retrying: 0, pending: 0 })
    }))

  it.scopedLive("an outbox past SERVICE_WEBHOOK_RETENTION_MAX drops its oldest changes and counts them; the newest arrive", () =>
    Effect.gen(function*() {
      const receiver = yield* startReceiver(SECRET)
      yield* Effect.promise(() => receiver.down())
      const server = yield* startServer(webhookEnv(receiver, { SERVICE_WEBHOOK_RETENTION_MAX: "2" }))
      for (let i = 0; i < 5; i++) yield* ingestTurn(server.baseUrl, "dan", `note ${i}`, `s${i}`)
      const dropped = yield* statsUntil(server.baseUrl, { dropped: 3, pending: 2 })
      expect(dropped).toMatchObject({ dropped: 3, pending: 2 })
      yield* Effect.promise(() => receiver.up())
      const events = yield* eventsOf(server.baseUrl, "dan")
      yield* eventually("the two newest", () => deliveredOf(receiver, "dan").length === 2)
      expect(deliveredOf(receiver, "dan").map((delivery) => delivery.json.event_id)).toEqual(events.slice(-2).map((event) => event.event_id))
      const metrics = (yield* rawFetch(`${server.baseUrl}/metrics`, { headers: authHeaders() })).text
      expect(metric(metrics, "sodamem_webhook_changes_total", "dropped")).toBe(3)
    }))

  it.scopedLive("the configuration shows the URL without credentials, query or secret", () =>
    Effect.gen(function*() {
      const receiver = yield* startReceiver(SECRET)
      const withCredentials = receiver.url.replace("http://", "http://hook-user:hook-pass@") + "?token=tok-123"
      const server = yield* startServer(webhookEnv(receiver, { SERVICE_WEBHOOK_URL: withCredentials, SERVICE_WEBHOOK_RETENTION_MAX: "77" }))
      const config = yield* rawFetch(`${server.baseUrl}/v1/admin/config`, { headers: authHeaders() })
      expect(config.body).toMatchObject({ webhook_url: receiver.url, webhook_secret_set: true, webhook_retention_max: 77 })
      for (const secret of [SECRET, "hook-pass", "hook-user", "tok-123"]) expect(config.text).not.toContain(secret)
      // The credentials go as HTTP Basic authentication.
      yield* ingestTurn(server.baseUrl, "eve", "hello")
      yield* eventually("the delivery", () => receiver.answered() === 1)
      expect(receiver.deliveries[0]!.headers.authorization).toBe(`Basic ${Buffer.from("hook-user:hook-pass").toString("base64")}`)
    }))
})

describe("webhooks on or off for the deployment", () => {
  it.scopedLive("a process without webhooks keeps them on: its writes wait in the outbox for the next process with them; only SERVICE_WEBHOOKS_OFF turns them off", () =>
    Effect.gen(function*() {
      const receiver = yield* startReceiver(SECRET)
      const deployment = yield* freshDeployment
      const withWebhooks = serviceEnv(deployment, webhookEnv(receiver))
      const serving = <A>(env: Record<string, string>, use: (server: RunningServer) => Effect.Effect<A>) =>
        Effect.scoped(Effect.flatMap(startServer(env), use))

      yield* serving(withWebhooks, (server) =>
        Effect.gen(function*() {
          expect(yield* stats(server.baseUrl)).toMatchObject({ enabled: true, database_enabled: true, mismatch: false })
          expect((yield* ingestTurn(server.baseUrl, "gil", "written with webhooks")).status).toBe(200)
          yield* eventually("the first change", () => receiver.answered() >= 1)
        }))
      yield* serving(serviceEnv(deployment, { SERVICE_ALLOW_PURGE: "true" }), (server) =>
        Effect.gen(function*() {
          expect(yield* stats(server.baseUrl)).toMatchObject({ enabled: false, database_enabled: true, mismatch: true })
          expect((yield* ingestTurn(server.baseUrl, "gil", "written without webhooks", "s2")).status).toBe(200)
          expect(yield* userRows(server).count("gil", "webhook_outbox")).toBe(1)
          // An erase here is announced too, after the erased user's changes.
          expect((yield* ingestTurn(server.baseUrl, "hal", "soon erased")).status).toBe(200)
          const erased = yield* rawFetch(`${server.baseUrl}/v1/memories?user_id=hal&purge=true`, { method: "DELETE", headers: authHeaders() })
          expect(erased.status).toBe(200)
        }))
      yield* serving(withWebhooks, (server) =>
        Effect.gen(function*() {
          yield* eventually("the changes written without webhooks", () => deliveredOf(receiver, "gil").length >= 2 && deliveredOf(receiver, "hal").length >= 2)
          const events = yield* eventsOf(server.baseUrl, "gil")
          expect(deliveredOf(receiver, "gil").map((delivery) => delivery.json.event_id)).toEqual(events.map((event) => event.event_id))
          expect(deliveredOf(receiver, "hal").map((delivery) => (delivery.json.details as { action: string }).action)).toEqual(["store_turns", "purge_user"])
        }))
      yield* serving(serviceEnv(deployment, { SERVICE_WEBHOOKS_OFF: "true" }), (server) =>
        Effect.gen(function*() {
          expect(yield* stats(server.baseUrl)).toMatchObject({ enabled: false, database_enabled: false, mismatch: false })
          expect((yield* ingestTurn(server.baseUrl, "gil", "written with webhooks off", "s3")).status).toBe(200)
          expect(yield* userRows(server).count("gil", "webhook_outbox")).toBe(0)
        }))
      yield* serving(serviceEnv(deployment), (server) =>
        Effect.map(stats(server.baseUrl), (counts) => expect(counts).toMatchObject({ enabled: false, database_enabled: false, mismatch: false })))
    }))
})

describe("webhook configuration", () => {
  it.skipIf(onPostgres).each([
    [{ SERVICE_WEBHOOK_URL: "ftp://127.0.0.1/hook", SERVICE_WEBHOOK_SECRET: SECRET }, "SERVICE_WEBHOOK_URL"],
    [{ SERVICE_WEBHOOK_URL: "not a url", SERVICE_WEBHOOK_SECRET: SECRET }, "SERVICE_WEBHOOK_URL"],
    [{ SERVICE_WEBHOOK_URL: "http://127.0.0.1:9/hook" }, "SERVICE_WEBHOOK_SECRET"],
    [{ SERVICE_WEBHOOK_URL: "http://127.0.0.1:9/hook", SERVICE_WEBHOOK_SECRET: SECRET, SERVICE_WEBHOOKS_OFF: "true" }, "SERVICE_WEBHOOKS_OFF"]
  ])("%o stops the start with config_invalid naming %s", async (env, variable) => {
    const deployment = await Effect.runPromise(freshDeployment)
    const run = await runToExit(serviceEnv(deployment, env))
    expect(run.code).not.toBe(0)
    const error = jsonLines(run.stderr).find((line) => line.code === "config_invalid")
    expect(error, run.stderr).toMatchObject({ code: "config_invalid", details: { variable } })
    expect(run.stderr + run.stdout).not.toContain(SECRET)
  })
})

/** A service process for the enclosing scope: killed with it, however the test ends. */
const serviceProcess = (env: Record<string, string>) =>
  Effect.acquireRelease(Effect.promise(() => startProcess(env)), (service) =>
    Effect.promise(async () => {
      if (service.child.exitCode === null && service.child.signalCode === null) service.child.kill("SIGKILL")
      await service.exited
    }))

/** Kills a service process with SIGKILL and waits until it is gone. */
const killed = (service: ServiceProcess) => Effect.promise(() => {
  service.child.kill("SIGKILL")
  return service.exited
})

describe("webhooks across a SIGKILL (real processes)", () => {
  it("a change committed but not delivered when the service is killed arrives after the restart", async () => {
    const deployment = await Effect.runPromise(freshDeployment)
    await Effect.runPromise(Effect.scoped(Effect.gen(function*() {
      const receiver = yield* startReceiver(SECRET)
      yield* Effect.promise(() => receiver.down())
      const env = serviceEnv(deployment, webhookEnv(receiver))
      const first = yield* serviceProcess(env)
      const base = `http://127.0.0.1:${first.port}`
      expect((yield* ingestTurn(base, "finn", "committed before the kill")).status).toBe(200)
      const events = yield* eventsOf(base, "finn")
      yield* killed(first)
      expect(yield* userRows(deployment).count("finn", "webhook_outbox")).toBe(1)
      yield* Effect.promise(() => receiver.up())
      yield* serviceProcess(env)
      yield* eventually("the change after the restart", () => receiver.answered() >= 1)
      expect(receiver.deliveries.map((delivery) => delivery.json.event_id)).toEqual(events.map((event) => event.event_id))
      expect(receiver.deliveries.every((delivery) => delivery.signed)).toBe(true)
    })))
  }, 120_000)

  it.skipIf(onPostgres)("an erase cut off before its store went is not announced; one whose store went is", async () => {
    const deployment = await Effect.runPromise(freshDeployment)
    await Effect.runPromise(Effect.scoped(Effect.gen(function*() {
      const receiver = yield* startReceiver(SECRET)
      const env = serviceEnv(deployment, webhookEnv(receiver))
      const first = yield* serviceProcess(env)
      expect((yield* ingestTurn(`http://127.0.0.1:${first.port}`, "kept", "still here")).status).toBe(200)
      yield* eventually("the ingest's change", () => receiver.answered() === 1)
      yield* killed(first)
      // What an erase leaves when killed after holding its changes: one for a user whose store is
      // gone (the erase happened), one for a user whose store is still there (it did not).
      const held = (userId: string) =>
        JSON.stringify({
          event_id: `trace_held_${userId}`,
          ts: "2026-11-26T00:00:00.000000+00:00",
          user_id: userId,
          agent_id: null,
          run_id: null,
          type: "memory_delete",
          memory_id: null,
          session_id: null,
          reason: "every memory of the user purged, and the user's store erased",
          details: { action: "purge_user", purged: true }
        })
      withControlFile(deployment.dataRoot, { readonly: false }, (db) => {
        const insert = db.prepare("INSERT INTO webhook_queue (user_id, payload, held) VALUES (?, ?, 1)")
        insert.run("gone", held("gone"))
        insert.run("kept", held("kept"))
      })
      yield* serviceProcess(env)
      // (The ingest's change may come again: it was delivered just before the kill.)
      const ids = () => receiver.deliveries.map((delivery) => delivery.json.event_id)
      yield* eventually("the released erase", () => ids().includes("trace_held_gone"))
      yield* Effect.sleep("500 millis")
      expect(ids()).not.toContain("trace_held_kept")
      expect(yield* controlRows(deployment).count("webhook_queue")).toBe(0)
    })))
  }, 120_000)
})
