import { HttpApi, HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Either, Schema } from "effect"
import { MemoryApi } from "../src/api/Api.js"
import { MCP_PATH } from "../src/http/mcp.js"
import { documentGaps, requestBodiesOf, requestExamples } from "./support/openapiGaps.js"
import { authHeaders, rawFetch, startServer } from "./support/server.js"

type Json = Record<string, unknown>

const document = (): Json => ({ ...OpenApi.fromApi(MemoryApi) })

/** Each request body the API definition declares, keyed as the document keys it: `METHOD /path media-type`. */
const declaredPayloads = () => {
  const payloads = new Map<string, Schema.Schema<unknown, unknown>>()
  HttpApi.reflect(MemoryApi, {
    onGroup: () => undefined,
    onEndpoint: ({ endpoint, payloads: byType }) => {
      const path = endpoint.path.replace(/:(\w+)/g, "{$1}")
      for (const [type, { ast }] of byType) payloads.set(`${endpoint.method} ${path} ${type}`, Schema.make(ast))
    }
  })
  return payloads
}

describe("the API reference (/docs)", () => {
  it("describes every operation, tag, parameter and object property of the document", () => {
    const gaps = documentGaps(document())
    expect(gaps.operations).toEqual([])
    expect(gaps.summaries).toEqual([])
    expect(gaps.tags).toEqual([])
    expect(gaps.parameters).toEqual([])
    expect(gaps.properties).toEqual([])
    // The walk reaches the properties at all: the contract has hundreds.
    expect(gaps.propertyTotal).toBeGreaterThan(400)
  })

  it("counts what an API leaves undescribed: an operation, its tag, a parameter, a property, a body without example", () => {
    const bare = HttpApi.make("bare").add(
      HttpApiGroup.make("things").add(
        HttpApiEndpoint.post("make", "/things/:id")
          .setPath(Schema.Struct({ id: Schema.String }))
          .setPayload(Schema.Struct({
            name: Schema.String.annotations({ description: "What it is called." }),
            size: Schema.Int.pipe(Schema.between(1, 9)),
            parts: Schema.Array(Schema.Struct({ label: Schema.String }))
          }))
          .addSuccess(Schema.Struct({ id: Schema.String.annotations({ description: "Its id." }) }))
      )
    )
    const gaps = documentGaps({ ...OpenApi.fromApi(bare) })
    expect(gaps.operations).toEqual(["POST /things/{id}"])
    expect(gaps.tags).toEqual(["things"])
    expect(gaps.parameters).toEqual(["POST /things/{id} id"])
    // A description Effect derives from a refinement ("a number between 1 and 9") names no meaning.
    // (The builder's own decode error, which this service's document drops, is left aside.)
    expect(gaps.properties.filter((at) => at.startsWith("POST "))).toEqual([
      "POST /things/{id} body application/json.size",
      "POST /things/{id} body application/json.parts",
      "POST /things/{id} body application/json.parts[].label"
    ])
    expect(gaps.requestBodiesWithoutExample).toEqual(["POST /things/{id} application/json"])
  })

  it("gives every request body an example its schema in the API definition accepts", () => {
    const payloads = declaredPayloads()
    const bodies = requestBodiesOf(document())
    expect(bodies.map(({ id, type }) => `${id} ${type}`).sort()).toEqual([...payloads.keys()].sort())
    for (const { id, media, type } of bodies) {
      const examples = requestExamples(media)
      expect(examples.length, `${id} ${type}`).toBeGreaterThan(0)
      const schema = payloads.get(`${id} ${type}`)!
      for (const example of examples) {
        const decoded = Schema.decodeUnknownEither(schema)(example)
        expect(Either.isRight(decoded), `${id} ${type}: ${Either.isLeft(decoded) ? decoded.left.message : ""}`).toBe(true)
      }
    }
  })

  it("says where the MCP endpoint is, and where its guide is", () => {
    const info = document().info as { readonly description: string }
    expect(info.description).toContain(`\`${MCP_PATH}\``)
    expect(info.description).toContain("docs/mcp.md")
  })

  it.scoped("the import example is an export a real server loads", () =>
    Effect.gen(function*() {
      const [example] = requestBodiesOf(document()).flatMap(({ id, media }) => id === "POST /v1/import" ? requestExamples(media) : [])
      expect(typeof example).toBe("string")
      const { baseUrl } = yield* startServer()
      const loaded = yield* rawFetch(`${baseUrl}/v1/import?user_id=bob`, {
        method: "POST",
        headers: { ...authHeaders(), "content-type": "application/x-ndjson" },
        body: String(example)
      })
      expect(loaded.status, loaded.text).toBe(201)
      expect(loaded.body).toEqual({ user_id: "bob", source_user_id: "alice" })
      const found = yield* rawFetch(`${baseUrl}/v1/search`, {
        method: "POST",
        headers: { ...authHeaders(), "content-type": "application/json" },
        body: JSON.stringify({ user_id: "bob", query: "Lisbon" })
      })
      expect(JSON.stringify(found.body)).toContain("I moved to Lisbon in March.")
    }))
})
