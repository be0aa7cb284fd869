/**
 * Real data for the fuzzer to aim at: a few users with memories, API keys (one revoked), a job,
 * and the hints that put their ids into generated requests. Also the check that the service
 * still works after the run.
 */
import { FastCheck as fc } from "effect"

export interface Fixtures {
  readonly userIds: ReadonlyArray<string>
  readonly memoryIds: ReadonlyArray<string>
  readonly jobIds: ReadonlyArray<string>
  readonly keyIds: ReadonlyArray<string>
  readonly entityNames: ReadonlyArray<string>
}

/** The first user holds the memories whose ids the fuzzer aims at; the others make ids miss. */
const USER_IDS = ["fuzz_user_1", "fuzz_user_2", "fuzz_user_3"]
/** Half the fixture turns carry these scope keys, so that narrowing by them finds something. */
const SCOPE = { agent_id: "fuzz_agent", run_id: "fuzz_run", project_id: "fuzz_project" } as const
const ENTITY_NAMES = ["Alice", "Berlin", "Miso", "Toyota", "Lisbon"]
const TURNS = [
  "My sister Alice moved to Berlin in 2021 and works as a nurse there.",
  "I adopted a cat named Miso last spring; she is afraid of the vacuum.",
  "We sold the old Toyota in March and now we bike to work.",
  "Next summer I am planning a trip to Lisbon with Alice."
]

interface JsonReply {
  readonly status: number
  readonly json: unknown
}

const call = async (baseUrl: string, apiKey: string, method: string, path: string, body?: unknown): Promise<JsonReply> => {
  const response = await fetch(`${baseUrl}${path}`, {
    method,
    headers: { authorization: `Bearer ${apiKey}`, ...(body === undefined ? {} : { "content-type": "application/json" }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) })
  })
  const text = await response.text()
  try {
    return { status: response.status, json: JSON.parse(text) }
  } catch {
    return { status: response.status, json: text }
  }
}

const field = (value: unknown, ...path: ReadonlyArray<string>): unknown =>
  path.reduce<unknown>((at, key) => typeof at === "object" && at !== null ? (at as Record<string, unknown>)[key] : undefined, value)

const strings = (values: ReadonlyArray<unknown>) => values.filter((value): value is string => typeof value === "string")

/** Writes the fixtures; extraction (`infer: true`) is tried too and skipped where no LLM is configured. */
export const prepareFixtures = async (baseUrl: string, apiKey: string): Promise<Fixtures> => {
  const jobIds: Array<unknown> = []
  for (const userId of USER_IDS) {
    for (const [i, content] of TURNS.entries()) {
      const scope = i % 2 === 1 ? SCOPE : {}
      const write = { user_id: userId, ...scope, session_id: `fixture-${i}`, messages: [{ role: "user", content }], async_mode: false }
      const verbatim = await call(baseUrl, apiKey, "POST", "/v1/memories", { ...write, infer: false })
      if (verbatim.status !== 200) throw new Error(`fixture ingest failed: ${verbatim.status} ${JSON.stringify(verbatim.json)}`)
      await call(baseUrl, apiKey, "POST", "/v1/memories", { ...write, session_id: `fixture-llm-${i}`, infer: true })
    }
    const queued = await call(baseUrl, apiKey, "POST", "/v1/memories", { user_id: userId, messages: [{ content: TURNS[0] }], infer: false, async_mode: true })
    jobIds.push(field(queued.json, "job_id"))
  }
  // The ids a caller of the first user sees: its facts (listed) and, from a search, raw turns' evidence ids.
  const facts = field((await call(baseUrl, apiKey, "GET", `/v1/memories?user_id=${USER_IDS[0]}&limit=50`)).json, "memories")
  const hits = field((await call(baseUrl, apiKey, "POST", "/v1/search", { user_id: USER_IDS[0], query: ENTITY_NAMES.join(" "), top_k: 20 })).json, "hits")
  const memoryIds = [...(Array.isArray(facts) ? facts : []), ...(Array.isArray(hits) ? hits : [])].map((memory) => field(memory, "id"))
  const keys = await Promise.all(["fuzz-key-a", "fuzz-key-b"].map((name) => call(baseUrl, apiKey, "POST", "/v1/admin/keys", { name })))
  const keyIds = strings(keys.map((key) => field(key.json, "key", "id")))
  if (keyIds[1] !== undefined) await call(baseUrl, apiKey, "DELETE", `/v1/admin/keys/${keyIds[1]}`)
  return { userIds: USER_IDS, memoryIds: strings(memoryIds), jobIds: strings(jobIds), keyIds, entityNames: ENTITY_NAMES }
}

/** Mostly a real id, sometimes one that does not exist. */
const someId = (ids: ReadonlyArray<string>) =>
  ids.length === 0 ? fc.uuid() : fc.oneof({ weight: 3, arbitrary: fc.constantFrom(...ids) }, { weight: 1, arbitrary: fc.uuid() })

/** Mostly the fixtures' scope key, else any (short) one. */
const scopeKey = (value: string) =>
  fc.oneof({ weight: 3, arbitrary: fc.constant(value) }, { weight: 1, arbitrary: fc.oneof(fc.string({ maxLength: 20 }), fc.constant(null)) })

const sessionTime = fc.oneof(
  fc.date({ min: new Date("1990-01-01"), max: new Date("2030-12-31"), noInvalidDate: true }).map((date) => date.toISOString()),
  fc.integer({ min: 0, max: 1_900_000_000 }),
  fc.constantFrom("2024", "2024-05", "2024/05/17 (Friday) 09:30", null)
)

/** Values by property or parameter name, where the schema alone rarely gives one the server acts on. */
export const hintsFor = (fixtures: Fixtures): Record<string, fc.Arbitrary<unknown>> => ({
  user_id: fc.oneof({ weight: 3, arbitrary: fc.constant(fixtures.userIds[0]) }, { weight: 1, arbitrary: fc.constantFrom(...fixtures.userIds) }),
  agent_id: scopeKey(SCOPE.agent_id),
  run_id: scopeKey(SCOPE.run_id),
  project_id: scopeKey(SCOPE.project_id),
  memory_id: someId(fixtures.memoryIds),
  start_id: someId(fixtures.memoryIds),
  job_id: someId(fixtures.jobIds),
  key_id: someId(fixtures.keyIds),
  entity_id: fc.oneof(fc.constantFrom(...fixtures.entityNames), fc.string({ minLength: 1, maxLength: 20 })),
  // Booleans the document types as plain strings.
  purge: fc.constantFrom("true", "false"),
  include_revoked: fc.constantFrom("true", "false"),
  session_time: sessionTime,
  current_date: sessionTime.map((value) => typeof value === "number" ? null : value)
})

export interface Check {
  readonly name: string
  readonly ok: boolean
  readonly detail: string
}

/** After the run: health is 200, and a write is found by a search. */
export const serviceStillWorks = async (baseUrl: string, apiKey: string): Promise<ReadonlyArray<Check>> => {
  const health = await call(baseUrl, apiKey, "GET", "/health")
  const marker = `quokkamarker${Date.now()}`
  const write = await call(baseUrl, apiKey, "POST", "/v1/memories", {
    user_id: "fuzz_after",
    messages: [{ content: `The fuzzer left the word ${marker} here.` }],
    infer: false,
    async_mode: false
  })
  const search = await call(baseUrl, apiKey, "POST", "/v1/search", { user_id: "fuzz_after", query: marker })
  const hits = field(search.json, "hits")
  const found = Array.isArray(hits) && hits.some((hit) => String(field(hit, "content")).includes(marker))
  return [
    { name: "GET /health is 200 ok", ok: health.status === 200 && field(health.json, "status") === "ok", detail: `${health.status}` },
    { name: "an ingest is 200", ok: write.status === 200, detail: `${write.status}` },
    { name: "a search finds it", ok: search.status === 200 && found, detail: `${search.status}, found=${found}` }
  ]
}
